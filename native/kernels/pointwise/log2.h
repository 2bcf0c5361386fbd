/* log2: base-2 logarithm */
#define LM_PW_log2(T, self) LM_MATH(log2, self)
