/* polygamma: the n-th derivative of digamma (n >= 0; a negative n is refused by the check) */
#include "../special.h"
#define LM_PW_polygamma(T, n, self) ((T)LM_POLYGAMMA((n), (double)(self)))
#define LM_PW_polygamma_CHECK(compute, n, self) \
    ((n) < 0 ? lm_set_error(LM_ERR_RUNTIME, "polygamma(n, x) does not support negative n.") : 0)
/* C loops: n == 1 (every block, or none) takes trigamma without the test, which stops float32's loop from
 * vectorising (GCC does not unswitch it there) */
#define LM_PW_polygamma_SHORT(T, n, self) ((T)lm_trigamma((double)(self)))
#define LM_PW_polygamma_SHORT_OK(T, n, self) ((n) == 1)
