#define LM_PW_sin(T, self) LM_CMATH(sin, self)
