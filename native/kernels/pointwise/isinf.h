/* isinf: true at +inf and -inf (never for integers) */
#define LM_PW_isinf(T, self) (LM_IS_FLOAT(T) && ((self) == (T)LM_HIGHEST(T) || (self) == (T)LM_LOWEST(T)))
#define LM_PW_isinf_complex(T, self) (isinf(LM_CREAL(self)) || isinf(LM_CIMAG(self)))
