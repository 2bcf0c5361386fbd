#define LM_PW_exp(T, self) LM_EXP(self)
/* C loops: blocks whose every x is in e^x's finite, non-NaN range skip the clamps and selects */
#define LM_PW_exp_SHORT(T, self) LM_EXP_SHORT(self)
#define LM_PW_exp_SHORT_OK(T, self) LM_EXP_SHORT_OK(self)
