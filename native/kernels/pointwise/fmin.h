/* fmin: elementwise min ignoring NaN (NaN only where both are), ties to self: C's fmin, PyTorch's */
#define LM_PW_fmin(T, self, other) (((other) != (other) || (self) <= (other)) ? (self) : (other))
