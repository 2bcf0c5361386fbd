/* floor_divide: Python's // (an integer divisor of zero is refused by the check) */
#define LM_PW_floor_divide(T, self, other) _Generic((T)0, \
    float: (float)lm_floordiv_py((double)(self), (double)(other)), \
    double: lm_floordiv_py((double)(self), (double)(other)), \
    default: lm_ifloordiv((int64_t)(self), (int64_t)(other)))
#define LM_PW_floor_divide_CHECK(compute, self, other) lm_check_divisor(compute, self, other)
