/* float32 forms of vmath.h's exp2, log2, log10, cosh, sinh, atanh, asinh and acosh in float
 * arithmetic: twice the lanes of the double forms rounded once. vmath.h's conventions (selects,
 * every lane finite, integers through the bits of x + 1.5 * 2^23); tests/test_vmath.py sweeps the
 * float32 range against float64. Included by common.h after vmath.h. */
#ifndef LOOM_KERNELS_VMATH_F32_H
#define LOOM_KERNELS_VMATH_F32_H

/* e^r for |r| <= ln2 / 2 (+ rounding): Taylor to r^7, truncation below 2^-29 */
LM_VM float lm_expf_reduced(float r) {
    return 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720 +
           r * (1.0f / 5040)))))));
}

/* 2^x: n = rint(x), f = x - n exactly, 2^f as the series of e^(f ln 2) in f; 2^n in two halves
 * so the subnormal results round once. 2^x is +inf from 128 on and rounds to 0 below -150. */
LM_VM float lm_exp2f(float x) {
    float xc = x > 128.0f ? 128.0f : (x < -151.0f ? -151.0f : x);
    float k = xc + LM_RND_SHIFTF, n = k - LM_RND_SHIFTF, f = xc - n;
    float p = 1.0f + f * (0x1.62e430p-1f + f * (0x1.ebfbe0p-3f + f * (0x1.c6b08ep-5f + f * (0x1.3b2ab6p-7f +
              f * (0x1.5d87fep-10f + f * (0x1.430912p-13f + f * 0x1.ffcbfcp-17f))))));
    int32_t ni = lm_bits32(k) - lm_bits32(LM_RND_SHIFTF), n1 = ni / 2, n2 = ni - n1;
    float y = p * lm_from_bits32((n1 + 127) << 23) * lm_from_bits32((n2 + 127) << 23);
    y = x != x ? x : y;
    y = x < -151.0f ? 0.0f : y;
    return x >= 128.0f ? INFINITY : y;
}

/* log2 x = k + log(m) / ln 2, log10 x = k log10(2) + log(m) / ln 10 (log10 2 in two parts, the
 * first 16 bits so k times it is exact); special values as lm_logf */
#define LM_DEF_LOGF_BASE(NAME, KHI, KLO, INV)                                                   \
    LM_VM float NAME(float x) {                                                                 \
        float xc = x > 0 ? x : 1.0f;                                                            \
        xc = xc <= FLT_MAX ? xc : 1.0f;                                                         \
        float k, r = lm_logf_parts(xc, &k);                                                     \
        float y = k * (KHI) + (r * (INV) + k * (KLO));                                          \
        y = x > FLT_MAX ? x : y;                                                                \
        y = x == 0 ? -INFINITY : y;                                                             \
        y = x < 0 ? NAN : y;                                                                    \
        return x != x ? x : y;                                                                  \
    }
LM_DEF_LOGF_BASE(lm_log2f, 1.0f, 0.0f, 0x1.715476p0f)
LM_DEF_LOGF_BASE(lm_log10f, 0x1.3440p-2f, 0x1.3509f8p-18f, 0x1.bcb7b2p-2f)

/* e^x / 2 for x in [0, 89.5] (+inf beyond, where cosh and sinh overflow): the halving in the
 * scale, so e^x's overflow from 88.72 on does not come first */
LM_VM float lm_expf_half(float x) {
    float xc = x > 89.5f ? 89.5f : x;
    float k = xc * 0x1.715476p0f + LM_RND_SHIFTF, n = k - LM_RND_SHIFTF;
    float r = (xc - n * LM_LN2_HIF) - n * LM_LN2_LOF;
    int32_t ni = lm_bits32(k) - lm_bits32(LM_RND_SHIFTF), n1 = ni / 2, n2 = ni - n1 - 1;
    float y = lm_expf_reduced(r) * lm_from_bits32((n1 + 127) << 23) * lm_from_bits32((n2 + 127) << 23);
    return x > 89.5f ? INFINITY : y;
}

/* cosh |x| = e^|x| / 2 + (1/4) / (e^|x| / 2); sinh the same with a minus from 2 on, where the
 * difference loses under a bit, and its Taylor series to x^13 below */
LM_VM float lm_coshf(float x) {
    float h = lm_expf_half(fabsf(x));
    return x != x ? x : h + 0.25f / h;
}

LM_VM float lm_sinhf(float x) {
    float a = fabsf(x), z = a * a;
    float sm = a + a * z * (1.0f / 6 + z * (1.0f / 120 + z * (1.0f / 5040 + z * (1.0f / 362880 +
               z * (1.0f / 39916800 + z * (1.0f / 6227020800.0f))))));
    float h = lm_expf_half(a);
    float y = a < 2.0f ? sm : h - 0.25f / h;
    return x != x ? x : copysignf(y, x);
}

/* atanh |x| = log1p(2|x| / (1 - |x|)) / 2, one log where (log1p |x| - log1p -|x|) / 2 took two; below 1/2 the
 * quotient as 2|x| + |x| q (q = 2|x| / (1 - |x|)), whose rounding then falls on a small correction */
LM_VM float lm_atanhf(float x) {
    float a = fabsf(x), t = a + a;
    float q = t / (a < 1.0f ? 1.0f - a : 1.0f);
    float y = 0.5f * lm_log1pf(a < 0.5f ? t + a * q : q);
    y = a == 1.0f ? INFINITY : y;
    y = a > 1.0f ? NAN : y;
    return x != x ? x : copysignf(y, x);
}

/* asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) up to 2^12, log |x| + ln 2 beyond (1 + x^2
 * is x^2 in float there) */
LM_VM float lm_asinhf(float x) {
    float a = fabsf(x), as = a > 0x1p12f ? 0x1p12f : a, z = as * as;
    float y = lm_log1pf(as + z / (1.0f + sqrtf(1.0f + z)));
    float k, r = lm_logf_parts(a > 0x1p12f && a <= FLT_MAX ? a : 1.0f, &k);
    float big = (k + 1.0f) * LM_LN2_HIF + (r + (k + 1.0f) * LM_LN2_LOF);
    y = a > 0x1p12f ? big : y;
    y = a > FLT_MAX ? a : y;
    return x != x ? x : copysignf(y, x);
}

/* acosh x = log1p(t + sqrt(t (t + 2))), t = x - 1 (exact), up to 2^12 (t (t + 2) < 2^24 there: one form, where
 * log(2x - 1 / (x + sqrt(x^2 - 1))) took a second log from 2 on); log x + ln 2 beyond, through the same log's
 * parts with the exponent raised by one; NaN below 1 */
LM_VM float lm_acoshf(float x) {
    bool big = x >= 0x1p12f;
    float xc = x > 1.0f ? x : 1.0f;
    xc = big ? 1.0f : xc;
    float t = xc - 1.0f, u = t + sqrtf(t * (t + 2.0f));
    float v = 1.0f + u, c = u > 1.0f ? 1.0f - (v - u) : u - (v - 1.0f);   /* log1p(u) = log v + c / v, as lm_log1pf */
    float w = big ? x : v;
    w = w <= FLT_MAX ? w : 2.0f;
    float k, r = lm_logf_parts(w, &k);
    k = big ? k + 1.0f : k;
    float y = k * LM_LN2_HIF + ((r + (big ? 0.0f : c / w)) + k * LM_LN2_LOF);
    y = x > FLT_MAX ? x : y;
    y = x < 1.0f ? NAN : y;
    return x != x ? x : y;
}

#endif
