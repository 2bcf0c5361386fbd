/* igamma: the regularized lower incomplete gamma function P(a, x) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_igamma(T, self, other) ((T)lm_gammainc((double)(self), (double)(other)))
