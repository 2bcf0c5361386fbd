/* gelu_erf: x * Phi(x), Phi the standard normal CDF (gelu's exact form) */
#define LM_PW_gelu_erf(T, self) ((T)0.5 * (self) * ((T)1 + LM_MATH(erf, (self) * (T)0.70710678118654752440)))
