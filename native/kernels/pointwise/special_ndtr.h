/* ndtr: the standard normal CDF (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_ndtr(T, self) ((T)LM_NDTR(self))
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_special_ndtr_WIDE 1
