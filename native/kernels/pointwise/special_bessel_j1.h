/* bessel_j1: the Bessel function of the first kind, order 1 (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_bessel_j1(T, self) ((T)lm_j1((double)(self)))
/* C loops: blocks whose every |x| < 5 take the first form alone (no trig) */
#define LM_PW_special_bessel_j1_SHORT(T, self) ((T)lm_j1_short((double)(self)))
#define LM_PW_special_bessel_j1_SHORT_OK(T, self) lm_bessel_j_short_ok((double)(self))
