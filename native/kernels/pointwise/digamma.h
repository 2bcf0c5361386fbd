/* digamma: the logarithmic derivative of the gamma function (-inf at 0, NaN at negative integers) */
#include "../special.h"
#define LM_PW_digamma(T, self) ((T)lm_digamma((double)(self)))
