/* fmax: elementwise max ignoring NaN (NaN only where both are), ties to self: C's fmax, PyTorch's */
#define LM_PW_fmax(T, self, other) (((other) != (other) || (self) >= (other)) ? (self) : (other))
