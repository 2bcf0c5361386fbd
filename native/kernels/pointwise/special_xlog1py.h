/* xlog1py: x log1p(y), 0 where x is 0 unless y is NaN (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_xlog1py(T, self, other) ((T)lm_xlog1py((double)(self), (double)(other)))
