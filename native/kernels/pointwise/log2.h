/* log2: base-2 logarithm */
#define LM_PW_log2(T, self) LM_MATH(log2, self)
#define LM_PW_log2_complex(T, self) (LM_CMATH(log, self) / (T)0.693147180559945309)
