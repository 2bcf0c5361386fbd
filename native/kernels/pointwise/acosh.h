/* acosh: inverse hyperbolic cosine */
#define LM_PW_acosh(T, self) LM_CMATH(acosh, self)
