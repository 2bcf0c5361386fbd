#define LM_PW_tanh(T, self) LM_TANH(self)
