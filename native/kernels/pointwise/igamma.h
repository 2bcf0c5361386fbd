/* igamma: the regularized lower incomplete gamma function P(a, x) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_igamma(T, self, other) LM_IGAMMA(T, lm_gammainc, false, self, other)
/* C loops: float32 blocks whose every (a, x) has 0 < a <= 12, 0 <= x <= 64 take the fixed-depth form alone */
#define LM_PW_igamma_SHORT(T, self, other) LM_IGAMMA_SHORT(T, false, self, other)
#define LM_PW_igamma_SHORT_OK(T, self, other) LM_IGAMMA_SHORT_OK(T, self, other)
