/* frac: the fractional part x - trunc(x), with x's sign. serves: floating */
#define LM_PW_frac(T, self) ((self) - LM_MATH(trunc, self))
