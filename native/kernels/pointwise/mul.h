/* mul: self * other (logical and for bool) */
#define LM_PW_mul(T, self, other) ((self) * (other))
