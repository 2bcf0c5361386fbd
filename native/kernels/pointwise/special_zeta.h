/* zeta: the Hurwitz zeta function zeta(x, q) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_zeta(T, self, other) LM_ZETA(T, self, other)
/* C loops: float32 blocks whose every (x, q) has 1 < x <= 16, 0 < q take the vectorising sum alone */
#define LM_PW_special_zeta_SHORT(T, self, other) LM_ZETA_SHORT(T, self, other)
#define LM_PW_special_zeta_SHORT_OK(T, self, other) LM_ZETA_SHORT_OK(T, self, other)
