/* pow: self ** exponent; integers by squaring (negative powers of |x|>1 give 0) */
#define LM_PW_pow(T, self, exponent) _Generic((T)0, \
    float: powf((float)(self), (float)(exponent)), double: pow((double)(self), (double)(exponent)), \
    default: lm_ipow((int64_t)(self), (int64_t)(exponent)))
