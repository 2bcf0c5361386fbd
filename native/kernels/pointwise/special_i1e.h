/* i1e: exp(-|x|) i1(x) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_i1e(T, self) ((T)lm_i1e((double)(self)))
