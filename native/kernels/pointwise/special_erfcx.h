/* erfcx: the scaled complementary error function exp(x^2) erfc(x) (serves: floating) */
#include "../special_fns.h"
#define LM_PW_special_erfcx(T, self) ((T)lm_erfcx((double)(self)))
