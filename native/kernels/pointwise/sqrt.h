#define LM_PW_sqrt(T, self) LM_CMATH(sqrt, self)
