/* bessel_j1: the Bessel function of the first kind, order 1 (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_bessel_j1(T, self) ((T)lm_j1((double)(self)))
