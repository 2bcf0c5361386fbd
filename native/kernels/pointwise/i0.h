/* i0: the modified Bessel function of the first kind, order 0 (serves: floating) */
#include "../special_fns.h"
#define LM_PW_i0(T, self) LM_SPECIAL(T, i0, self)
/* C loops: blocks whose every |x| < 10 take the power series alone */
#define LM_PW_i0_SHORT(T, self) LM_SPECIAL(T, i0_short, self)
#define LM_PW_i0_SHORT_OK(T, self) lm_bessel_i_short_ok((double)(self))
