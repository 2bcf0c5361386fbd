/* erfc: the complementary error function 1 - erf(x), accurate where it is tiny (serves: floating) */
#include "../special_fns.h"
#define LM_PW_erfc(T, self) ((T)LM_ERFC(self))
