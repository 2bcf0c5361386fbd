/* isposinf: true at +inf (never for integers) */
#define LM_PW_isposinf(T, self) (LM_IS_FLOAT(T) && (self) == (T)LM_HIGHEST(T))
