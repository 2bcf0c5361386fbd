/* erfc: the complementary error function 1 - erf(x), accurate where it is tiny (serves: floating) */
#include "../special_fns.h"
#define LM_PW_erfc(T, self) ((T)LM_ERFC(self))
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_erfc_WIDE 1
