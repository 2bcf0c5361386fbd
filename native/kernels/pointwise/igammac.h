/* igammac: the regularized upper incomplete gamma function Q(a, x) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_igammac(T, self, other) LM_IGAMMA(T, lm_gammaincc, true, self, other)
/* C loops: float32 blocks whose every (a, x) has 0 < a <= 12, 0 <= x <= 64 take the fixed-depth form alone */
#define LM_PW_igammac_SHORT(T, self, other) LM_IGAMMA_SHORT(T, true, self, other)
#define LM_PW_igammac_SHORT_OK(T, self, other) LM_IGAMMA_SHORT_OK(T, self, other)
