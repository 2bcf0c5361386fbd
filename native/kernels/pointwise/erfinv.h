/* erfinv: the inverse error function (+-inf at +-1, NaN outside [-1, 1]) */
#include "../special.h"
#define LM_PW_erfinv(T, self) ((T)LM_ERFINV(self))
/* C loops: blocks whose every |x| < 0.9966 skip the tail pieces */
#define LM_PW_erfinv_SHORT(T, self) ((T)LM_ERFINV_SHORT(self))
#define LM_PW_erfinv_SHORT_OK(T, self) LM_ERFINV_SHORT_OK(self)
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_erfinv_WIDE 1
