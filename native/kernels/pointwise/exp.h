#define LM_PW_exp(T, self) LM_EXP(self)
