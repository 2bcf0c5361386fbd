/* isneginf: true at -inf (never for integers) */
#define LM_PW_isneginf(T, self) (LM_IS_FLOAT(T) && (self) == (T)LM_LOWEST(T))
