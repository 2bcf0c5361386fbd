/* tan: tangent */
#define LM_PW_tan(T, self) LM_CMATH(tan, self)
/* C loops: blocks whose every |x| is below 2^24 (float) or 2^27 (double) skip the full-range reduction */
#define LM_PW_tan_SHORT(T, self) LM_MATH(tan_short, self)
#define LM_PW_tan_SHORT_OK(T, self) LM_MATH(trig_short_ok, self)
