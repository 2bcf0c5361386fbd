#define LM_PW_cos(T, self) LM_CMATH(cos, self)
/* C loops: blocks whose every |x| is below 2^24 (float) or 2^27 (double) skip the full-range reduction */
#define LM_PW_cos_SHORT(T, self) LM_MATH(cos_short, self)
#define LM_PW_cos_SHORT_OK(T, self) LM_MATH(trig_short_ok, self)
