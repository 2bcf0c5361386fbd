#define LM_PW_cos(T, self) LM_CMATH(cos, self)
