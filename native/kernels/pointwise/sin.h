#define LM_PW_sin(T, self) LM_MATH(sin, self)
