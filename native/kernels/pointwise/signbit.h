/* signbit: true where the sign bit is set (so -0.0 and -NaN count, as PyTorch's) */
#define LM_PW_signbit(T, self) (LM_IS_FLOAT(T) ? signbit((double)(self)) != 0 : (self) < 0)
