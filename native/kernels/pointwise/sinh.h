/* sinh: hyperbolic sine */
#define LM_PW_sinh(T, self) LM_MATH(sinh, self)
