/* bessel_j0: the Bessel function of the first kind, order 0 (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_bessel_j0(T, self) ((T)lm_j0((double)(self)))
