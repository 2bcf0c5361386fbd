/* fmod: C's remainder, the sign of the dividend (an integer divisor of zero is refused by the check) */
#define LM_PW_fmod(T, self, other) _Generic((T)0, \
    float: fmodf((float)(self), (float)(other)), double: fmod((double)(self), (double)(other)), \
    default: lm_itrunc_mod((int64_t)(self), (int64_t)(other)))
#define LM_PW_fmod_CHECK(compute, self, other) lm_check_divisor(compute, self, other)
