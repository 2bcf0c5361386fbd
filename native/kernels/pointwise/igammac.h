/* igammac: the regularized upper incomplete gamma function Q(a, x) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_igammac(T, self, other) ((T)lm_gammaincc((double)(self), (double)(other)))
