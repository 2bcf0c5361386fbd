/* remainder: Python modulo, the sign of the divisor (an integer divisor of zero is refused by the check) */
#define LM_PW_remainder(T, self, other) _Generic((T)0, \
    float: lm_fmod_pyf((float)(self), (float)(other)), double: lm_fmod_py((double)(self), (double)(other)), \
    default: lm_imod((int64_t)(self), (int64_t)(other)))
#define LM_PW_remainder_CHECK(compute, self, other) lm_check_divisor(compute, self, other)
