/* fmod: C's remainder, the sign of the dividend (an integer divisor of zero is refused by the check) */
#define LM_PW_fmod(T, self, other) lm_fmod(T, self, other)
#define LM_PW_fmod_CHECK(compute, self, other) lm_check_divisor(compute, self, other)
