/* remainder: Python modulo, the sign of the divisor (an integer divisor of zero is refused by the check) */
#define LM_PW_remainder(T, self, other) lm_remainder(T, self, other)
#define LM_PW_remainder_CHECK(compute, self, other) lm_check_divisor(compute, self, other)
/* C loops (float, double): blocks whose every |self / other| < 2^52 (2^23 float) take a - n other, exact */
#define LM_PW_remainder_SHORT(T, self, other) lm_remainder_short(T, self, other)
#define LM_PW_remainder_SHORT_OK(T, self, other) lm_fmod_short_ok_(T, self, other)
