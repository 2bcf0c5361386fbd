/* mul: self * other (logical and for bool) */
#define LM_PW_mul(T, self, other) ((self) * (other))
#define LM_PW_mul_complex(T, self, other) LM_CMUL(T, self, other)
