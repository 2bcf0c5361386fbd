/* exp, exp2, expm1, log, log2, log10, log1p, tanh, cosh, sinh, atanh, asinh and acosh for double (expm1, log,
 * log1p for float; common.h's table rounds the double forms of the others) in plain arithmetic, so loops over them vectorise
 * (glibc's exp, log, ... do not without -ffast-math), the float64 side of lm_expf & co. in
 * common.h. Every branch is computed and the result picked by selects, as the vectoriser needs;
 * each clamp keeps the unused side finite. Integers move through the bits of x + 1.5 * 2^52
 * (its low bits hold rint(x)), not through conversions, which AVX2 lacks for int64.
 *
 * The polynomials are Taylor series, long enough that truncation stays below 2^-60 of the
 * result on the reduced range: ~1 ulp each (tests/test_vmath.py sweeps them against long
 * double). float32 has its own expm1f, logf and log1pf below, the same algorithms in float.
 *
 * Included by common.h only; the CPU build (C) routes float64 calls here, the CUDA build keeps
 * CUDA's own exp, log, ... (the C++ overloads in common.h). */
#ifndef LOOM_KERNELS_VMATH_H
#define LOOM_KERNELS_VMATH_H

/* Forced inline on the CPU: a body calling one of these inside another helper (softplus's
 * log1p(exp(.)), logaddexp's) would otherwise pass GCC's inline budget, and an out-of-line call
 * stops the loop's vectorisation. */
#if defined(__GNUC__) && !defined(__CUDACC__)
#define LM_VM static inline __attribute__((always_inline))
#else
#define LM_VM static inline LM_HD
#endif

#define LM_LN2_HI 0x1.62e42fee00000p-1   /* ln 2 to 32 bits: n * LM_LN2_HI is exact for |n| < 2^21 */
#define LM_LN2_LO 0x1.a39ef35793c76p-33  /* the rest of ln 2 */
#define LM_RND_SHIFT 0x1.8p52           /* x + 1.5 * 2^52: rint(x) in the low bits, for |x| < 2^51 */

LM_VM int64_t lm_bits64(double x) { union { double d; int64_t i; } u = {x}; return u.i; }
LM_VM double lm_from_bits64(int64_t i) { union { int64_t i; double d; } u = {i}; return u.d; }

/* e^r - 1 - r for |r| <= ln2 / 2 (+ rounding): r^2 (1/2 + r/6 + ... + r^12/14!), kept apart from r
 * so that callers add r to it where that is exact */
LM_VM double lm_expm1_tail(double r) {
    double q = 1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040 +
               r * (1.0 / 40320 + r * (1.0 / 362880 + r * (1.0 / 3628800 + r * (1.0 / 39916800 +
               r * (1.0 / 479001600 + r * (1.0 / 6227020800.0 + r * (1.0 / 87178291200.0))))))))))));
    return r * (r * q);
}

/* e^x: x = n ln2 + r (Cody-Waite), 2^n applied in two halves so the subnormal range stays exact
 * and n = 1024 (just below the overflow threshold) does not overflow the scale */
LM_VM double lm_exp_short(double x) {   /* lm_exp where lm_exp_short_ok holds: the same bits */
    double k = x * 0x1.71547652b82fep0 + LM_RND_SHIFT;
    double n = k - LM_RND_SHIFT;
    double rh = x - n * LM_LN2_HI, r = rh - n * LM_LN2_LO, c = (rh - r) - n * LM_LN2_LO;
    double e = r + lm_expm1_tail(r);
    double p = 1.0 + (e + c * (e + 1.0));   /* c: what r lost in rounding */
    int64_t ni = lm_bits64(k) - lm_bits64(LM_RND_SHIFT), n1 = ni / 2, n2 = ni - n1;
    return p * lm_from_bits64((n1 + 1023) << 52) * lm_from_bits64((n2 + 1023) << 52);
}
LM_VM bool lm_exp_short_ok(double x) { return (x >= -746.0) & (x <= 709.79); }
LM_VM double lm_exp(double x) {
    double xc = x > 709.79 ? 709.79 : (x < -746.0 ? -746.0 : x);
    double y = lm_exp_short(xc);
    y = x != x ? x : y;   /* one select a statement: GCC if-converts nested ones less readily */
    y = x < -746.0 ? 0.0 : y;
    return x > 709.79 ? INFINITY : y;
}

/* e^x - 1: 2^n (e^r - 1) + (2^n - 1), exact in its last step's operands for n <= 53; beyond,
 * e^x's way. Below -40 it is -1 in double. */
LM_VM double lm_expm1(double x) {
    double xc = x > 709.79 ? 709.79 : (x < -40.0 ? -40.0 : x);
    double k = xc * 0x1.71547652b82fep0 + LM_RND_SHIFT;
    double n = k - LM_RND_SHIFT;
    double rh = xc - n * LM_LN2_HI, r = rh - n * LM_LN2_LO, c = (rh - r) - n * LM_LN2_LO;
    double w = lm_expm1_tail(r), e0 = r + w, tail = w + c * (e0 + 1.0), e = r + tail;
    int64_t ni = lm_bits64(k) - lm_bits64(LM_RND_SHIFT), n1 = ni / 2, n2 = ni - n1;
    double s = lm_from_bits64(((ni > 60 ? 60 : ni) + 1023) << 52);
    /* s r + (s - 1) first (exact for |n| <= 1), then the small rest: not s e, whose rounding
     * would be scaled by s into the result */
    double small = (s * r + (s - 1.0)) + s * tail;
    double big = (e + 1.0) * lm_from_bits64((n1 + 1023) << 52) * lm_from_bits64((n2 + 1023) << 52);
    double y = ni > 53 ? big : small;
    y = x == 0 ? x : y;   /* keeps -0 (r + r*r*q makes it +0) */
    y = x != x ? x : y;
    y = x < -40.0 ? -1.0 : y;
    return x > 709.79 ? INFINITY : y;
}

/* log(1 + f) - f for f = m - 1, m in [sqrt(1/2), sqrt(2)): s = f / (2 + f), log(1 + f) =
 * 2 atanh(s) = f - (f^2/2 - s (f^2/2 + R)), R = 2 s^2/3 + 2 s^4/5 + ... (s^2 <= 0.0295) */
LM_VM double lm_log1p_reduced(double f) {
    double s = f / (2.0 + f), z = s * s, h = 0.5 * f * f;
    double R = z * (2.0 / 3 + z * (2.0 / 5 + z * (2.0 / 7 + z * (2.0 / 9 + z * (2.0 / 11 + z * (2.0 / 13 +
               z * (2.0 / 15 + z * (2.0 / 17 + z * (2.0 / 19 + z * (2.0 / 21))))))))));
    return f - (h - s * (h + R));
}

/* log x for finite x > 0 (the callers pick the special values): x = 2^k m with m in
 * [sqrt(1/2), sqrt(2)); subnormals are scaled by 2^54 first. *k gets k as a double. */
LM_VM double lm_log_parts(double x, double *k) {
    double xs = x < 0x1p-1022 ? x * 0x1p54 : x;
    /* adding 1 - bits(sqrt(1/2)) to the exponent field moves [sqrt(1/2), sqrt(2)) to [1, 2): the
     * exponent of the sum is k */
    int64_t ix = lm_bits64(xs) + (0x3ff0000000000000LL - 0x3fe6a09e667f3bcdLL);
    int64_t ki = (ix >> 52) - (x < 0x1p-1022 ? 1023 + 54 : 1023);
    double m = lm_from_bits64((ix & 0x000fffffffffffffLL) + 0x3fe6a09e667f3bcdLL);
    *k = lm_from_bits64(lm_bits64(LM_RND_SHIFT) + ki) - LM_RND_SHIFT;
    return lm_log1p_reduced(m - 1.0);
}

LM_VM double lm_log(double x) {
    /* single-condition selects only: GCC cannot vectorise a select between two conditions' masks
     * (x > 0 && x <= DBL_MAX) once the body sits in a bigger one */
    double xc = x > 0 ? x : 1.0;
    xc = xc <= DBL_MAX ? xc : 1.0;
    double k, r = lm_log_parts(xc, &k);
    double y = k * LM_LN2_HI + (r + k * LM_LN2_LO);
    /* NaN and +inf give themselves, 0 gives -inf, x < 0 NaN */
    y = x > DBL_MAX ? x : y;
    y = x == 0 ? -INFINITY : y;
    y = x < 0 ? NAN : y;
    return x != x ? x : y;
}

/* log(1 + x): u = 1 + x rounded, c the rounding error (Fast2Sum, the larger operand first), and
 * log(1 + x) = log u + c / u */
LM_VM double lm_log1p(double x) {
    double u = 1.0 + x;
    double c = x > 1.0 ? 1.0 - (u - x) : x - (u - 1.0);
    double uc = x > -1.0 ? u : 2.0;
    uc = x <= DBL_MAX ? uc : 2.0;
    double k, r = lm_log_parts(uc, &k);
    double y = k * LM_LN2_HI + ((r + c / uc) + k * LM_LN2_LO);
    /* x == 0 keeps -0; tiny x (u == 1) gives x through c; selects as in lm_log */
    y = x == 0 ? x : y;
    y = x > DBL_MAX ? x : y;
    y = x == -1.0 ? -INFINITY : y;
    y = x < -1.0 ? NAN : y;
    return x != x ? x : y;
}

/* tanh |x| = t / (t + 2) with t = e^(2|x|) - 1 (positive: lm_expm1 is at its best there); 1 from
 * 22 on (in double) */
LM_VM double lm_tanh(double x) {
    double a = fabs(x);
    double ac = a > 22.0 ? 22.0 : a;
    double t = lm_expm1(2.0 * ac), d = t + 2.0;
    double err = t > 2.0 ? (t - d) + 2.0 : (2.0 - d) + t;   /* what t + 2 lost in rounding */
    double q = t / d, y = q - q * (err / d);
    return x != x ? x : copysign(a > 22.0 ? 1.0 : y, x);
}

/* 2^x: n = rint(x), f = x - n exactly, 2^f = e^(f ln 2); f ln 2 rounds once, which costs
 * |f ln 2| <= 0.35 ulp */
LM_VM double lm_exp2(double x) {
    double xc = x > 1024.5 ? 1024.5 : (x < -1076.0 ? -1076.0 : x);
    double k = xc + LM_RND_SHIFT;
    double n = k - LM_RND_SHIFT;
    double r = (xc - n) * 0x1.62e42fefa39efp-1;
    double p = 1.0 + (r + lm_expm1_tail(r));
    int64_t ni = lm_bits64(k) - lm_bits64(LM_RND_SHIFT), n1 = ni / 2, n2 = ni - n1;
    double y = p * lm_from_bits64((n1 + 1023) << 52) * lm_from_bits64((n2 + 1023) << 52);
    y = x != x ? x : y;
    y = x < -1076.0 ? 0.0 : y;
    return x > 1024.5 ? INFINITY : y;
}

/* log2 x = k + log(m) / ln 2 and log10 x = k log10(2) + log(m) / ln 10, exact at powers of 2
 * (log2) and without k's product rounding (log10: log10(2) in two parts); special values as lm_log */
#define LM_DEF_LOG_BASE(NAME, KHI, KLO, INV)                                                    \
    LM_VM double NAME(double x) {                                                               \
        double xc = x > 0 ? x : 1.0;                                                            \
        xc = xc <= DBL_MAX ? xc : 1.0;                                                          \
        double k, r = lm_log_parts(xc, &k);                                                     \
        double y = k * (KHI) + (r * (INV) + k * (KLO));                                         \
        y = x > DBL_MAX ? x : y;                                                                \
        y = x == 0 ? -INFINITY : y;                                                             \
        y = x < 0 ? NAN : y;                                                                    \
        return x != x ? x : y;                                                                  \
    }
LM_DEF_LOG_BASE(lm_log2, 1.0, 0.0, 0x1.71547652b82fep0)
LM_DEF_LOG_BASE(lm_log10, 0x1.34413509f7800p-2, 0x1.fef311f12b358p-46, 0x1.bcb7b1526e50ep-2)

/* e^x / 2 for x in [0, 711] (+inf beyond 710.48): lm_exp with the halving in its scale, so the
 * range where e^x overflows but e^x / 2 does not keeps lm_exp's accuracy */
LM_VM double lm_exp_half(double x) {
    double xc = x > 711.0 ? 711.0 : x;
    double k = xc * 0x1.71547652b82fep0 + LM_RND_SHIFT;
    double n = k - LM_RND_SHIFT;
    double rh = xc - n * LM_LN2_HI, r = rh - n * LM_LN2_LO, c = (rh - r) - n * LM_LN2_LO;
    double e = r + lm_expm1_tail(r);
    double p = 1.0 + (e + c * (e + 1.0));
    int64_t ni = lm_bits64(k) - lm_bits64(LM_RND_SHIFT), n1 = ni / 2, n2 = ni - n1 - 1;
    double y = p * lm_from_bits64((n1 + 1023) << 52) * lm_from_bits64((n2 + 1023) << 52);
    return x > 711.0 ? INFINITY : y;
}

/* cosh and sinh from e^|x| (sinh below 1, where e - 1/e cancels, by its Taylor series to x^19);
 * from 20 on e^-|x| is below their last bit: e^|x| / 2 */
LM_VM double lm_cosh(double x) {
    double a = fabs(x);
    double e = lm_exp(a > 20.0 ? 20.0 : a);
    double y = a > 20.0 ? lm_exp_half(a) : 0.5 * e + 0.5 / e;
    return x != x ? x : y;
}

LM_VM double lm_sinh(double x) {
    double a = fabs(x);
    double z = a * a;
    double sm = a + a * z * (1.0 / 6 + z * (1.0 / 120 + z * (1.0 / 5040 + z * (1.0 / 362880 + z * (1.0 / 39916800 +
                z * (1.0 / 6227020800.0 + z * (1.0 / 1307674368000.0 + z * (1.0 / 355687428096000.0 +
                z * (1.0 / 121645100408832000.0)))))))));
    double e = lm_exp(a > 20.0 ? 20.0 : a);
    double y = a > 20.0 ? lm_exp_half(a) : 0.5 * e - 0.5 / e;
    y = a < 1.0 ? sm : y;
    return x != x ? x : copysign(y, x);
}

/* atanh |x| = log1p(2|x| + 2|x| |x| / (1 - |x|)) / 2 below 1/2 (the correction is small there),
 * log1p(2|x| / (1 - |x|)) / 2 above */
LM_VM double lm_atanh(double x) {
    double a = fabs(x), t = a + a;
    double a1 = a < 1.0 ? 1.0 - a : 1.0;
    double y = 0.5 * lm_log1p(a < 0.5 ? t + t * a / a1 : t / a1);
    y = a == 1.0 ? INFINITY : y;
    y = a > 1.0 ? NAN : y;
    return x != x ? x : copysign(y, x);
}

/* asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) (no cancellation) up to 2^26, log |x| + ln 2
 * beyond (where 1 + x^2 is x^2 in double) */
LM_VM double lm_asinh(double x) {
    double a = fabs(x), as = a > 0x1p26 ? 0x1p26 : a, z = as * as;
    double y = lm_log1p(as + z / (1.0 + sqrt(1.0 + z)));
    double k, r = lm_log_parts(a > 0x1p26 && a <= DBL_MAX ? a : 1.0, &k);
    double big = (k + 1.0) * LM_LN2_HI + (r + (k + 1.0) * LM_LN2_LO);
    y = a > 0x1p26 ? big : y;
    y = a > DBL_MAX ? a : y;
    return x != x ? x : copysign(y, x);
}

/* acosh x = log1p(t + sqrt(t (t + 2))), t = x - 1 (exact): x + sqrt(x^2 - 1) - 1 without cancellation,
 * up to 2^26; beyond, log 2x = log1p(2x - 1), with 2x scaled by 2^-64 (and 64 ln 2 added back) from
 * 2^1000, where it would overflow. One log for every x; NaN below 1. */
LM_VM double lm_acosh(double x) {
    double xc = x > 1.0 ? (x < 0x1p26 ? x : 0x1p26) : 1.0, t = xc - 1.0;
    double xs = x >= 0x1p1000 ? x * 0x1p-64 : x;
    double u = x < 0x1p26 ? t + sqrt(t * (t + 2.0)) : 2.0 * xs - 1.0;
    double y = lm_log1p(u);
    y = x >= 0x1p1000 ? y + 64 * LM_LN2_HI + 64 * LM_LN2_LO : y;
    y = x < 1.0 ? NAN : y;
    return x != x ? x : y;
}

/* (m + ml) e^(x + xl) as a pair yh + *yl, for |xl| <= 2^-40 |x| (x + xl an exact pair such as -a^2,
 * which lm_exp would take rounded: 2^-53 |x| relative in the result) and finite m > 0, |ml| <= 2^-40 m:
 * m + m r + m (e^(r + c) - 1 - r) + ml, with r + c = x + xl - n ln 2, summed without rounding but for
 * the small terms, then scaled by 2^n (exact unless the result is subnormal; *yl is then meaningless).
 * x up to 746, past e^x's overflow, for a small m (I0's e^x / sqrt(2 pi x)): the product overflows itself */
LM_VM double lm_exp_mul2(double x, double xl, double m, double ml, double *yl) {
    double xc = x > 746.0 ? 746.0 : (x < -746.0 ? -746.0 : x);
    double k = xc * 0x1.71547652b82fep0 + LM_RND_SHIFT;
    double n = k - LM_RND_SHIFT;
    double rh = xc - n * LM_LN2_HI, t = n * LM_LN2_LO - xl, r = rh - t, c = (rh - r) - t;
    double w = lm_expm1_tail(r);
    double sl = w + c * ((r + w) + 1.0);   /* e^(r + c) - 1 - r */
    double p = m * r, pl = fma(m, r, -p);
    double sh = m + p, e = ((m - sh) + p) + (pl + fma(m, sl, fma(ml, r, ml)));   /* |m r| < m: Fast2Sum */
    double h = sh + e, l = e - (h - sh);
    int64_t ni = lm_bits64(k) - lm_bits64(LM_RND_SHIFT), n1 = ni / 2, n2 = ni - n1;
    double s1 = lm_from_bits64((n1 + 1023) << 52), s2 = lm_from_bits64((n2 + 1023) << 52);
    double y = h * s1 * s2, yls = l * s1 * s2;
    yls = x < -746.0 ? 0.0 : yls;   /* single-condition selects, as lm_log */
    *yl = x > 746.0 ? 0.0 : yls;
    y = x < -746.0 ? 0.0 : y;
    return x > 746.0 ? INFINITY : y;
}

LM_VM double lm_exp_mul(double x, double xl, double m, double ml) {
    double yl;
    return lm_exp_mul2(x, xl, m, ml, &yl);
}

#ifndef __CUDACC__
/* c[0] u^(n-1) + ... + c[n-1] as four Horner chains in u^4, one per residue of the power mod 4, joined
 * by Horner in u: a quarter of plain Horner's latency (45 dependent fmas would leave the vector units
 * idle), each step one fma, so every loop rounds alike. C side: the coefficient tables of vmath_erf.h
 * & co. are host arrays. */
LM_VM double lm_poly(const double *c, int n, double u) {
    double u2 = u * u, u4 = u2 * u2, p[4] = {0.0, 0.0, 0.0, 0.0};
#pragma GCC unroll 64
    for (int k = 0; k < n; k++) {   /* c[k] multiplies u^(n-1-k), whose residue mod 4 is (n-1-k) & 3 */
        int j = (n - 1 - k) & 3;
        p[j] = k < 4 ? c[k] : fma(p[j], u4, c[k]);
    }
    return fma(fma(fma(p[3], u, p[2]), u, p[1]), u, p[0]);
}
#define LM_POLY(c, u) lm_poly(c, (int)(sizeof(c) / sizeof((c)[0])), u)

/* the same polynomial as a pair h + *lo, the last m steps compensated (Graillat, Langlois and Louvet,
 * "Compensated Horner scheme", 2005: each step's product and sum errors summed by a second Horner): where
 * the high terms carry the value (a series of positive terms at its top end) every step's rounding would
 * count in full. lo0, lo1: the low parts of the constant and linear coefficients. */
LM_VM double lm_poly_comp(const double *c, int n, int m, double u, double lo0, double lo1, double *lo) {
    double h = lm_poly(c, n - m, u), e = 0.0;
#pragma GCC unroll 16
    for (int k = n - m; k < n; k++) {
        double p = h * u, pe = fma(h, u, -p);
        double s = p + c[k], sb = s - p, se = (p - (s - sb)) + (c[k] - sb);   /* TwoSum */
        e = fma(e, u, pe + se) + (k == n - 2 ? lo1 : (k == n - 1 ? lo0 : 0.0));
        h = s;
    }
    *lo = e;
    return h;
}

/* the same polynomial as a pair sh + *rest with c[n-1] and c[n-2] (the constant and linear coefficients) in
 * two parts (their low parts lo0, lo1) and c[n-2] u exact: where the higher terms are small, only the small
 * rest rounds, and a caller's product with sh can round once */
LM_VM double lm_poly_pair(const double *c, int n, double u, double lo0, double lo1, double *rest) {
    double c1 = c[n - 2], c0 = c[n - 1];
    double th = c1 * u, tl = fma(c1, u, -th);
    double sh = c0 + th, shb = sh - c0, sl = (c0 - (sh - shb)) + (th - shb);   /* TwoSum */
    *rest = fma(u * u, lm_poly(c, n - 2, u), fma(lo1, u, (sl + tl) + lo0));
    return sh;
}
#endif

/* ---- float32: the same algorithms in float arithmetic (twice the lanes of the double forms),
 * shorter series; ~1.5 ulp each (tests/test_vmath.py sweeps the float32 range) */
#define LM_LN2_HIF 0.693145751953125f          /* ln 2 to 16 bits: k * LM_LN2_HIF exact for |k| < 2^8 */
#define LM_LN2_LOF 1.42860682030941723212e-6f
#define LM_RND_SHIFTF 0x1.8p23f

LM_VM int32_t lm_bits32(float x) { union { float f; int32_t i; } u = {x}; return u.i; }
LM_VM float lm_from_bits32(int32_t i) { union { int32_t i; float f; } u = {i}; return u.f; }

LM_VM float lm_expm1f(float x) {
    float xc = x > 88.8f ? 88.8f : (x < -20.0f ? -20.0f : x);   /* expm1f is -1 below -17.4 */
    float k = xc * 1.44269504089f + LM_RND_SHIFTF;
    float n = k - LM_RND_SHIFTF;
    float rh = xc - n * LM_LN2_HIF, r = rh - n * LM_LN2_LOF, c = (rh - r) - n * LM_LN2_LOF;
    float w = r * (r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720 +
              r * (1.0f / 5040 + r * (1.0f / 40320))))))));
    float tail = w + c * (r + w + 1.0f);
    int32_t ni = lm_bits32(k) - lm_bits32(LM_RND_SHIFTF), n1 = ni / 2, n2 = ni - n1;
    float s = lm_from_bits32(((ni > 30 ? 30 : ni) + 127) << 23);
    float small = (s * r + (s - 1.0f)) + s * tail;
    float big = ((r + tail) + 1.0f) * lm_from_bits32((n1 + 127) << 23) * lm_from_bits32((n2 + 127) << 23);
    float y = ni > 24 ? big : small;
    y = x == 0 ? x : y;
    y = x != x ? x : y;
    y = x < -20.0f ? -1.0f : y;
    return x > 88.8f ? INFINITY : y;
}

/* log x for finite x > 0: log(1 + f), f = m - 1, m in [sqrt(1/2), sqrt(2)), plus k ln 2 */
LM_VM float lm_logf_parts(float x, float *k) {
    float xs = x < 0x1p-126f ? x * 0x1p25f : x;
    int32_t ix = lm_bits32(xs) + (0x3f800000 - 0x3f3504f3);
    int32_t ki = (ix >> 23) - (x < 0x1p-126f ? 127 + 25 : 127);
    float f = lm_from_bits32((ix & 0x007fffff) + 0x3f3504f3) - 1.0f;
    float sq = f / (2.0f + f), z = sq * sq, h = 0.5f * f * f;
    float R = z * (2.0f / 3 + z * (2.0f / 5 + z * (2.0f / 7 + z * (2.0f / 9))));
    *k = (float)ki;
    return f - (h - sq * (h + R));
}

LM_VM float lm_logf(float x) {
    float xc = x > 0 ? x : 1.0f;   /* single-condition selects, as lm_log */
    xc = xc <= FLT_MAX ? xc : 1.0f;
    float k, r = lm_logf_parts(xc, &k);
    float y = k * LM_LN2_HIF + (r + k * LM_LN2_LOF);
    y = x > FLT_MAX ? x : y;
    y = x == 0 ? -INFINITY : y;
    y = x < 0 ? NAN : y;
    return x != x ? x : y;
}

LM_VM float lm_log1pf(float x) {
    float u = 1.0f + x;
    float c = x > 1.0f ? 1.0f - (u - x) : x - (u - 1.0f);
    float uc = x > -1.0f ? u : 2.0f;
    uc = x <= FLT_MAX ? uc : 2.0f;
    float k, r = lm_logf_parts(uc, &k);
    float y = k * LM_LN2_HIF + ((r + c / uc) + k * LM_LN2_LOF);
    y = x == 0 ? x : y;
    y = x > FLT_MAX ? x : y;
    y = x == -1.0f ? -INFINITY : y;
    y = x < -1.0f ? NAN : y;
    return x != x ? x : y;
}

#endif
