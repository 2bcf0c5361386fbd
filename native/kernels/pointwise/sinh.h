/* sinh: hyperbolic sine */
#define LM_PW_sinh(T, self) LM_CMATH(sinh, self)
