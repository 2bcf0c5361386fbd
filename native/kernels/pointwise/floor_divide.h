/* floor_divide: floor(self / other); integer division by zero gives 0 (PyTorch raises) */
#define LM_PW_floor_divide(T, self, other) _Generic((T)0, \
    float: floorf((float)(self) / (float)(other)), double: floor((double)(self) / (double)(other)), \
    default: lm_ifloordiv((int64_t)(self), (int64_t)(other)))
