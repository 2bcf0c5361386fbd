/* log10: base-10 logarithm */
#define LM_PW_log10(T, self) LM_MATH(log10, self)
#define LM_PW_log10_complex(T, self) (LM_CMATH(log, self) / (T)2.302585092994045684)
