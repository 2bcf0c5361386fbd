#define LM_PW_sqrt(T, self) LM_MATH(sqrt, self)
