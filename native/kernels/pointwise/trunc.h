/* trunc: rounds toward zero (integers are unchanged) */
#define LM_PW_trunc(T, self) (LM_IS_FLOAT(T) ? (T)LM_MATH(trunc, self) : (self))
