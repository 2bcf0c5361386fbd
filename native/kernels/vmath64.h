/* exp, expm1, log, log1p and tanh for double in plain arithmetic, so loops over them vectorise
 * (glibc's exp, log, ... do not without -ffast-math), the float64 side of lm_expf & co. in
 * common.h. Every branch is computed and the result picked by selects, as the vectoriser needs;
 * each clamp keeps the unused side finite. Integers move through the bits of x + 1.5 * 2^52
 * (its low bits hold rint(x)), not through conversions, which AVX2 lacks for int64.
 *
 * The polynomials are Taylor series, long enough that truncation stays below 2^-60 of the
 * result on the reduced range: ~1 ulp each (tests/test_vmath.py sweeps them against long
 * double). Their float32 forms (expm1f, log1pf, logf) are these, rounded once to float.
 *
 * Included by common.h only; the CPU build (C) routes float64 calls here, the CUDA build keeps
 * CUDA's own exp, log, ... (the C++ overloads in common.h). */
#ifndef LOOM_KERNELS_VMATH64_H
#define LOOM_KERNELS_VMATH64_H

#define LM_LN2_HI 0x1.62e42fee00000p-1   /* ln 2 to 32 bits: n * LM_LN2_HI is exact for |n| < 2^21 */
#define LM_LN2_LO 0x1.a39ef35793c76p-33  /* the rest of ln 2 */
#define LM_RND_SHIFT 0x1.8p52           /* x + 1.5 * 2^52: rint(x) in the low bits, for |x| < 2^51 */

static inline LM_HD int64_t lm_bits64(double x) { union { double d; int64_t i; } u = {x}; return u.i; }
static inline LM_HD double lm_from_bits64(int64_t i) { union { int64_t i; double d; } u = {i}; return u.d; }

/* e^r - 1 - r for |r| <= ln2 / 2 (+ rounding): r^2 (1/2 + r/6 + ... + r^12/14!), kept apart from r
 * so that callers add r to it where that is exact */
static inline LM_HD double lm_expm1_tail(double r) {
    double q = 1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040 +
               r * (1.0 / 40320 + r * (1.0 / 362880 + r * (1.0 / 3628800 + r * (1.0 / 39916800 +
               r * (1.0 / 479001600 + r * (1.0 / 6227020800.0 + r * (1.0 / 87178291200.0))))))))))));
    return r * (r * q);
}

/* e^x: x = n ln2 + r (Cody-Waite), 2^n applied in two halves so the subnormal range stays exact
 * and n = 1024 (just below the overflow threshold) does not overflow the scale */
static inline LM_HD double lm_exp(double x) {
    double xc = x > 709.79 ? 709.79 : (x < -746.0 ? -746.0 : x);
    double k = xc * 0x1.71547652b82fep0 + LM_RND_SHIFT;
    double n = k - LM_RND_SHIFT;
    double rh = xc - n * LM_LN2_HI, r = rh - n * LM_LN2_LO, c = (rh - r) - n * LM_LN2_LO;
    double e = r + lm_expm1_tail(r);
    double p = 1.0 + (e + c * (e + 1.0));   /* c: what r lost in rounding */
    int64_t ni = lm_bits64(k) - lm_bits64(LM_RND_SHIFT), n1 = ni / 2, n2 = ni - n1;
    double y = p * lm_from_bits64((n1 + 1023) << 52) * lm_from_bits64((n2 + 1023) << 52);
    return x > 709.79 ? INFINITY : (x < -746.0 ? 0.0 : (x != x ? x : y));
}

/* e^x - 1: 2^n (e^r - 1) + (2^n - 1), exact in its last step's operands for n <= 53; beyond,
 * e^x's way. Below -40 it is -1 in double. */
static inline LM_HD double lm_expm1(double x) {
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
    /* x == 0: keeps -0 (r + r*r*q makes it +0) */
    return x > 709.79 ? INFINITY : (x < -40.0 ? -1.0 : (x != x || x == 0 ? x : y));
}

/* log(1 + f) - f for f = m - 1, m in [sqrt(1/2), sqrt(2)): s = f / (2 + f), log(1 + f) =
 * 2 atanh(s) = f - (f^2/2 - s (f^2/2 + R)), R = 2 s^2/3 + 2 s^4/5 + ... (s^2 <= 0.0295) */
static inline LM_HD double lm_log1p_reduced(double f) {
    double s = f / (2.0 + f), z = s * s, h = 0.5 * f * f;
    double R = z * (2.0 / 3 + z * (2.0 / 5 + z * (2.0 / 7 + z * (2.0 / 9 + z * (2.0 / 11 + z * (2.0 / 13 +
               z * (2.0 / 15 + z * (2.0 / 17 + z * (2.0 / 19 + z * (2.0 / 21))))))))));
    return f - (h - s * (h + R));
}

/* log x for finite x > 0 (the callers pick the special values): x = 2^k m with m in
 * [sqrt(1/2), sqrt(2)); subnormals are scaled by 2^54 first. *k gets k as a double. */
static inline LM_HD double lm_log_parts(double x, double *k) {
    int sub = x < 0x1p-1022;
    double xs = sub ? x * 0x1p54 : x;
    /* adding 1 - bits(sqrt(1/2)) to the exponent field moves [sqrt(1/2), sqrt(2)) to [1, 2): the
     * exponent of the sum is k */
    int64_t ix = lm_bits64(xs) + (0x3ff0000000000000LL - 0x3fe6a09e667f3bcdLL);
    int64_t ki = (ix >> 52) - 1023 - (sub ? 54 : 0);
    double m = lm_from_bits64((ix & 0x000fffffffffffffLL) + 0x3fe6a09e667f3bcdLL);
    *k = lm_from_bits64(lm_bits64(LM_RND_SHIFT) + ki) - LM_RND_SHIFT;
    return lm_log1p_reduced(m - 1.0);
}

static inline LM_HD double lm_log(double x) {
    double k, r = lm_log_parts(x > 0 && x <= DBL_MAX ? x : 1.0, &k);
    double y = k * LM_LN2_HI + (r + k * LM_LN2_LO);
    /* NaN and +inf give themselves, 0 gives -inf, x < 0 NaN */
    return x > 0 && x <= DBL_MAX ? y : (x == 0 ? -INFINITY : (x < 0 ? NAN : x));
}

/* log(1 + x): u = 1 + x rounded, c the rounding error (Fast2Sum, the larger operand first), and
 * log(1 + x) = log u + c / u */
static inline LM_HD double lm_log1p(double x) {
    double u = 1.0 + x;
    double c = x > 1.0 ? 1.0 - (u - x) : x - (u - 1.0);
    int ok = x > -1.0 && x <= DBL_MAX;
    double uc = ok ? u : 2.0;
    double k, r = lm_log_parts(uc, &k);
    double y = k * LM_LN2_HI + ((r + c / uc) + k * LM_LN2_LO);
    /* x == 0 keeps -0; tiny x (u == 1) gives x through c */
    return ok ? (x == 0 ? x : y) : (x == -1.0 ? -INFINITY : (x < -1.0 ? NAN : x));
}

/* tanh |x| = t / (t + 2) with t = e^(2|x|) - 1 (positive: lm_expm1 is at its best there); 1 from
 * 22 on (in double) */
static inline LM_HD double lm_tanh(double x) {
    double a = fabs(x);
    double ac = a > 22.0 ? 22.0 : a;
    double t = lm_expm1(2.0 * ac), d = t + 2.0;
    double err = t > 2.0 ? (t - d) + 2.0 : (2.0 - d) + t;   /* what t + 2 lost in rounding */
    double q = t / d, y = q - q * (err / d);
    return x != x ? x : copysign(a > 22.0 ? 1.0 : y, x);
}

#endif
