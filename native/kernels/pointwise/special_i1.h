/* i1: the modified Bessel function of the first kind, order 1 (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_i1(T, self) ((T)lm_i1((double)(self)))
