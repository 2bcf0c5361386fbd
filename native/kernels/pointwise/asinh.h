/* asinh: inverse hyperbolic sine */
#define LM_PW_asinh(T, self) LM_CMATH(asinh, self)
