/* sinc: sin(pi x) / (pi x), 1 at 0 (serves: floating) */
#include "../special_fns.h"
#define LM_PW_sinc(T, self) ((T)lm_sinc((double)(self)))
