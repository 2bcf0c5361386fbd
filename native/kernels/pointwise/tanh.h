#define LM_PW_tanh(T, self) LM_TANH(self)
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_tanh_WIDE 1
