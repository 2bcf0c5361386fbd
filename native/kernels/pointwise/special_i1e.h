/* i1e: exp(-|x|) i1(x) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_i1e(T, self) LM_SPECIAL(T, i1e, self)
/* C loops: blocks whose every |x| < 10 take the power series alone */
#define LM_PW_special_i1e_SHORT(T, self) LM_SPECIAL(T, i1e_short, self)
#define LM_PW_special_i1e_SHORT_OK(T, self) lm_bessel_i_short_ok((double)(self))
