#define LM_PW_ceil(T, self) (LM_IS_FLOAT(T) ? (T)LM_MATH(ceil, self) : (self))
