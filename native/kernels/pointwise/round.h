/* round: half to even, as PyTorch and NumPy */
#define LM_PW_round(T, self) (LM_IS_FLOAT(T) ? (T)LM_MATH(rint, self) : (self))
