/* atanh: inverse hyperbolic tangent */
#define LM_PW_atanh(T, self) LM_MATH(atanh, self)
