/* erf: the error function */
#define LM_PW_erf(T, self) LM_ERF(self)
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_erf_WIDE 1
