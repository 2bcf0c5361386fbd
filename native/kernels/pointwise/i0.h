/* i0: the modified Bessel function of the first kind, order 0 (serves: floating) */
#include "../special_fns.h"
#define LM_PW_i0(T, self) ((T)lm_i0((double)(self)))
