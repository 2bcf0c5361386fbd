/* gelu_erf_backward: grad_output * (Phi(x) + x phi(x)), gelu_erf's derivative in one pass (its graph
 * of ops was seven kernels and nodes). Below -3, 1 + erf(x / sqrt 2) loses its digits to
 * cancellation (float32 keeps none at -7), so there Phi(x) is phi(x) R(-x), R Mills' ratio
 * Phi(-t) / phi(t) from the 10th convergent of its continued fraction t + 1/(t + 2/(t + ...)),
 * built forwards (one division; 6e-7 relative from t = 3), and erfc in double. NaN at +-inf
 * (inf * 0), as PyTorch's gelu_backward. */
#ifndef LM_GELU_ERF_GRAD
#define LM_GELU_ERF_GRAD
/* R(t) for t >= 3 */
static inline LM_HD float lm_mills_ratio_f(float t) {
    float a0 = 1, a1 = t, b0 = 0, b1 = 1;
    for (int k = 1; k <= 10; k++) {
        float a2 = t * a1 + (float)k * a0, b2 = t * b1 + (float)k * b0;
        a0 = a1, a1 = a2, b0 = b1, b1 = b2;
    }
    return b1 / a1;
}
/* tail: whether x may be below -3 (false: the short form, which leaves the continued fraction out) */
static inline LM_HD float lm_gelu_erf_grad_f_at(float x, bool tail) {
    float t = x < -3.0f ? (x < -20.0f ? 20.0f : -x) : 3.0f;   /* phi is 0 in float beyond 20 */
    float phi = LM_EXP(-0.5f * x * x) * 0.39894228040143267794f;
    /* one fma, written out: the compiler contracted the sum either way by context, and a block's short
     * and full forms differed by an ulp */
    float near = fmaf(x, phi, 0.5f * (1 + LM_ERF(x * 0.70710678118654752440f)));
    return tail && x < -3.0f ? phi * (lm_mills_ratio_f(t) + x) : near;
}
static inline LM_HD float lm_gelu_erf_grad_f(float x) { return lm_gelu_erf_grad_f_at(x, true); }
#define LM_INV_SQRT_2PI_HI 0x1.9884533d43651p-2
#define LM_INV_SQRT_2PI_LO -0x1.cbc0d30ebfd15p-56
/* double: on the CPU (C) vmath.h's exp and vmath_erf.h's ndtr (Phi from erfc of -x / sqrt 2 as a
 * pair, both tails in one form), which vectorise where libm's exp, erf and erfc did not; x phi = x e^(-x^2 / 2)
 * / sqrt(2 pi) from x^2 and x / sqrt(2 pi) as pairs, within 2 ulp of |Phi| + |x phi| (the cancellation left of 0 is the
 * formula's) where exp(-0.5 * x * x) lost up to 466 ulp at |x| = 35 */
LM_VM double lm_gelu_erf_grad_d(double x) {   /* LM_VM: inlined, so the loop vectorises */
#ifdef __cplusplus
    double phi = exp(-0.5 * x * x) * 0.39894228040143267794;
    return (x < -3.0 ? 0.5 * erfc(-x * 0.70710678118654752440) : 0.5 * (1 + erf(x * 0.70710678118654752440))) + x * phi;
#else
    double h = x * x, l = fma(x, x, -h);   /* x^2 as an exact pair: its rounding, times x^2 / 2, would reach phi */
    double m = x * LM_INV_SQRT_2PI_HI, ml = fma(x, LM_INV_SQRT_2PI_HI, -m) + x * LM_INV_SQRT_2PI_LO;
    double r = lm_ndtr(x) + lm_exp_mul(-0.5 * h, -0.5 * l, m, ml);   /* x phi rounded once (phi may be subnormal) */
    return fabs(x) > DBL_MAX ? NAN : r;   /* inf * 0, which lm_exp_mul's select for e^-inf leaves out */
#endif
}
#endif
#define LM_PW_gelu_erf_backward(T, grad_output, self)                                                   \
    ((grad_output) * (sizeof(T) == sizeof(double) ? (T)lm_gelu_erf_grad_d((double)(self))             \
                                                   : (T)lm_gelu_erf_grad_f((float)(self))))
/* C loops: blocks whose every x >= -3 (as activations mostly are) skip the continued fraction; double has
 * one form */
#define LM_PW_gelu_erf_backward_SHORT(T, grad_output, self)                                             \
    ((grad_output) * (sizeof(T) == sizeof(double) ? (T)lm_gelu_erf_grad_d((double)(self))             \
                                                   : (T)lm_gelu_erf_grad_f_at((float)(self), false)))
#define LM_PW_gelu_erf_backward_SHORT_OK(T, grad_output, self) (sizeof(T) == sizeof(double) || (self) >= (T)-3)
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_gelu_erf_backward_WIDE 1
