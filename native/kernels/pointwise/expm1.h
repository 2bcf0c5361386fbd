#define LM_PW_expm1(T, self) LM_MATH(expm1, self)
