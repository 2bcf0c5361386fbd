/* fmod: C's remainder, the sign of the dividend (an integer divisor of zero is refused by the check) */
#define LM_PW_fmod(T, self, other) lm_fmod(T, self, other)
#define LM_PW_fmod_CHECK(compute, self, other) lm_check_divisor(compute, self, other)
/* C loops (float, double): blocks whose every |self / other| < 2^52 (2^23 float) take a - n other, exact */
#define LM_PW_fmod_SHORT(T, self, other) lm_fmod_short_(T, self, other)
#define LM_PW_fmod_SHORT_OK(T, self, other) lm_fmod_short_ok_(T, self, other)
