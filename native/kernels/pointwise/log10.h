/* log10: base-10 logarithm */
#define LM_PW_log10(T, self) LM_MATH(log10, self)
