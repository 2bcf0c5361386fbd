#define LM_PW_neg(T, self) (-(self))
