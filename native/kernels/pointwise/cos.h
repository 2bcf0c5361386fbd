#define LM_PW_cos(T, self) LM_MATH(cos, self)
