/* silu: x * sigmoid(x) */
#define LM_PW_silu(T, self) ((self) / ((T)1 + LM_EXP(-(self))))
