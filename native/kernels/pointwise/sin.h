#define LM_PW_sin(T, self) LM_CMATH(sin, self)
/* C loops: blocks whose every |x| is below 2^24 (float) or 2^27 (double) skip the full-range reduction */
#define LM_PW_sin_SHORT(T, self) LM_MATH(sin_short, self)
#define LM_PW_sin_SHORT_OK(T, self) LM_MATH(trig_short_ok, self)
