/* exp2: 2 to the power x */
#define LM_PW_exp2(T, self) LM_MATH(exp2, self)
