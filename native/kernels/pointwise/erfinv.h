/* erfinv: the inverse error function (+-inf at +-1, NaN outside [-1, 1]) */
#include "../special.h"
#define LM_PW_erfinv(T, self) ((T)LM_ERFINV(self))
