/* lgamma: log of the absolute value of the gamma function */
#define LM_PW_lgamma(T, self) LM_MATH(lgamma, self)
/* C loops: blocks whose every x > 0 skip the reflection (float; double's two forms are libm's lgamma) */
#define LM_PW_lgamma_SHORT(T, self) LM_MATH(lgamma_short, self)
#define LM_PW_lgamma_SHORT_OK(T, self) LM_MATH(lgamma_short_ok, self)
