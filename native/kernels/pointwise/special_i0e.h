/* i0e: exp(-|x|) i0(x) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_i0e(T, self) LM_SPECIAL(T, i0e, self)
/* C loops: blocks whose every |x| < 10 take the power series alone */
#define LM_PW_special_i0e_SHORT(T, self) LM_SPECIAL(T, i0e_short, self)
#define LM_PW_special_i0e_SHORT_OK(T, self) lm_bessel_i_short_ok((double)(self))
