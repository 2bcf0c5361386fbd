/* gelu_erf: x * Phi(x), Phi the standard normal CDF (gelu's exact form). Below -40, Phi(x) is 0 in
 * float64 too, so the product is -0; said outright so that -inf gives -0 (its limit), not -inf * 0 = NaN */
#define LM_PW_gelu_erf(T, self) \
    ((self) < (T)-40 ? (T)-0.0 : (T)0.5 * (self) * ((T)1 + LM_ERF((self) * (T)0.70710678118654752440)))
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_gelu_erf_WIDE 1
