/* ndtri: the inverse of the standard normal CDF (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_ndtri(T, self) ((T)lm_ndtri((double)(self)))
/* C loops: blocks whose every p is in [0.0017, 0.9983] skip the tail pieces */
#define LM_PW_special_ndtri_SHORT(T, self) ((T)lm_ndtri_short((double)(self)))
#define LM_PW_special_ndtri_SHORT_OK(T, self) lm_ndtri_short_ok((double)(self))
