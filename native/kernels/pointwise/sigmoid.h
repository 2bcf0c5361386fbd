/* sigmoid: 1 / (1 + e^-x) */
#define LM_PW_sigmoid(T, self) ((T)1 / ((T)1 + LM_EXP(-(self))))
