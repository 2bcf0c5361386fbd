/* signbit: true where the sign bit is set (so -0.0 and -NaN count, as PyTorch's) */
#define LM_PW_signbit(T, self) (signbit((double)(self)) != 0)   /* exact for every integer's sign too */
