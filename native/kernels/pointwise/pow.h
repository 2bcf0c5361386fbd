/* pow: self ** exponent; integers by squaring (negative tensor powers of |x|>1 give 0,
 * a negative Python int exponent of an integer tensor is refused by the check) */
#define LM_PW_pow(T, self, exponent) lm_pow(T, self, exponent)
#define LM_PW_pow_CHECK(compute, self, exponent) lm_check_int_pow(self, exponent)
#define LM_PW_pow_complex(T, self, exponent) LM_CPOW(T, self, exponent)
/* float and double pow are compute-bound (vmath_pow.h): their loops take AVX-512's full width */
#define LM_PW_pow_WIDE 1
