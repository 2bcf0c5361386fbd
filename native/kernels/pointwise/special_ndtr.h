/* ndtr: the standard normal CDF (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_ndtr(T, self) ((T)lm_ndtr((double)(self)))
