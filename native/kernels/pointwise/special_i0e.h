/* i0e: exp(-|x|) i0(x) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_i0e(T, self) ((T)lm_i0e((double)(self)))
