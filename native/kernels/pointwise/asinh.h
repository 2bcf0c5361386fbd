/* asinh: inverse hyperbolic sine */
#define LM_PW_asinh(T, self) LM_CMATH(asinh, self)
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_asinh_WIDE 1
