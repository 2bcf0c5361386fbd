/* floor_divide: Python's // (integer division by zero gives 0; PyTorch raises) */
#define LM_PW_floor_divide(T, self, other) _Generic((T)0, \
    float: (float)lm_floordiv_py((double)(self), (double)(other)), \
    double: lm_floordiv_py((double)(self), (double)(other)), \
    default: lm_ifloordiv((int64_t)(self), (int64_t)(other)))
