/* i1: the modified Bessel function of the first kind, order 1 (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_i1(T, self) LM_SPECIAL(T, i1, self)
/* C loops: blocks whose every |x| < 10 take the power series alone */
#define LM_PW_special_i1_SHORT(T, self) LM_SPECIAL(T, i1_short, self)
#define LM_PW_special_i1_SHORT_OK(T, self) lm_bessel_i_short_ok((double)(self))
