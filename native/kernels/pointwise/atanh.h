/* atanh: inverse hyperbolic tangent */
#define LM_PW_atanh(T, self) LM_CMATH(atanh, self)
