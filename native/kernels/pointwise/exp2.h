/* exp2: 2 to the power x */
#define LM_PW_exp2(T, self) LM_MATH(exp2, self)
#define LM_PW_exp2_complex(T, self) LM_CMATH(exp, (self) * (T)0.693147180559945309)
