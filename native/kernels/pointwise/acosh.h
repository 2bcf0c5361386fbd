/* acosh: inverse hyperbolic cosine */
#define LM_PW_acosh(T, self) LM_CMATH(acosh, self)
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_acosh_WIDE 1
