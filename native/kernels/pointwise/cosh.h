/* cosh: hyperbolic cosine */
#define LM_PW_cosh(T, self) LM_CMATH(cosh, self)
