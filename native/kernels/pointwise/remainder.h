/* remainder: Python modulo, the sign of the divisor */
#define LM_PW_remainder(T, self, other) _Generic((T)0, \
    float: lm_fmod_pyf((float)(self), (float)(other)), double: lm_fmod_py((double)(self), (double)(other)), \
    default: lm_imod((int64_t)(self), (int64_t)(other)))
