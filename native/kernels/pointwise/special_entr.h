/* entr: -x log x (0 at 0, -inf below) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_entr(T, self) ((T)lm_entr((double)(self)))
