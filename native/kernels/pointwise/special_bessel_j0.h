/* bessel_j0: the Bessel function of the first kind, order 0 (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_bessel_j0(T, self) ((T)lm_j0((double)(self)))
/* C loops: blocks whose every |x| < 5 take the first form alone (no trig) */
#define LM_PW_special_bessel_j0_SHORT(T, self) ((T)lm_j0_short((double)(self)))
#define LM_PW_special_bessel_j0_SHORT_OK(T, self) lm_bessel_j_short_ok((double)(self))
