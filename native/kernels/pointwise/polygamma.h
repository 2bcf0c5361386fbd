/* polygamma: the n-th derivative of digamma (n >= 0; a negative n is refused by the check) */
#include "../special.h"
#define LM_PW_polygamma(T, n, self) ((T)LM_POLYGAMMA((n), (double)(self)))
#define LM_PW_polygamma_CHECK(compute, n, self) \
    ((n) < 0 ? lm_set_error(LM_ERR_RUNTIME, "polygamma(n, x) does not support negative n.") : 0)
