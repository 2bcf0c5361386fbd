/* zeta: the Hurwitz zeta function zeta(x, q) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_zeta(T, self, other) ((T)lm_zeta((double)(self), (double)(other)))
