/* lgamma: log of the absolute value of the gamma function */
#define LM_PW_lgamma(T, self) LM_MATH(lgamma, self)
