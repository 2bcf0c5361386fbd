/* ndtri: the inverse of the standard normal CDF (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_ndtri(T, self) ((T)lm_ndtri((double)(self)))
