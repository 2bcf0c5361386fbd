/* xlogy: self * log(other), 0 where self is 0 unless other is NaN (ints promote to float) */
#define LM_PW_xlogy(T, self, other) ((other) != (other) ? (other) \
    : (self) == 0 ? (T)0 : (T)((self) * LM_MATH(log, other)))
