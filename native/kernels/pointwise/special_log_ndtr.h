/* log_ndtr: the log of the standard normal CDF, finite far into the left tail (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_log_ndtr(T, self) ((T)lm_log_ndtr((double)(self)))
