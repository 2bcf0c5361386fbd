/* pow in plain arithmetic, so loops over it vectorise (glibc's pow and powf do not): |x|^y =
 * 2^(y log2 |x|), log2 0 = -inf and log2 inf = inf carrying the zeros and infinities of x, then
 * the rest of C99's special cases (F.10.4.4) by selects, one condition each, as vmath.h; float's
 * through double, double's through pairs. Included by common.h after vmath.h. */
#ifndef LOOM_KERNELS_VMATH_POW_H
#define LOOM_KERNELS_VMATH_POW_H

/* float: log2 |x| and 2^t in double, to ~2^-36 (series of log(1 + f) = 2 atanh(f / (2 + f)) to
 * s^13, of 2^g to g^9): with |t| <= 160 that is far below a float ulp, and (float) rounds once.
 * float's subnormals are normal doubles, and so is 2^t down to 2^-160. */
LM_VM float lm_powf(float x, float y) {
    double ax = fabs((double)x);
    int64_t ix = lm_bits64(ax) + (0x3ff0000000000000LL - 0x3fe6a09e667f3bcdLL);
    double k = lm_from_bits64(lm_bits64(LM_RND_SHIFT) + ((ix >> 52) - 1023)) - LM_RND_SHIFT;
    double f = lm_from_bits64((ix & 0x000fffffffffffffLL) + 0x3fe6a09e667f3bcdLL) - 1.0;
    double s = f / (2.0 + f), z = s * s;
    double l = k + (2.0 * s + s * z * (2.0 / 3 + z * (2.0 / 5 + z * (2.0 / 7 + z * (2.0 / 9 + z * (2.0 / 11 +
               z * (2.0 / 13))))))) * 0x1.71547652b82fep0;
    l = ax == 0 ? -INFINITY : l;
    l = ax > DBL_MAX ? INFINITY : l;
    double t = ax == 1.0 ? 0.0 : (double)y * l;   /* 1^y is 1 also for y = +-inf (-1 gets its sign below) */
    double tc = t > 130.0 ? 130.0 : (t < -160.0 ? -160.0 : t);
    double kt = tc + LM_RND_SHIFT, g = tc - (kt - LM_RND_SHIFT);
    double p = 1.0 + g * (0x1.62e42fefa39efp-1 + g * (0x1.ebfbdff82c58fp-3 + g * (0x1.c6b08d704a0c0p-5 +
               g * (0x1.3b2ab6fba4e77p-7 + g * (0x1.5d87fe78a6731p-10 + g * (0x1.430912f86c787p-13 +
               g * (0x1.ffcbfc588b0c7p-17 + g * (0x1.62c0223a5c824p-20 + g * 0x1.b5253d395e7c4p-24))))))));
    double md = p * lm_from_bits64((lm_bits64(kt) - lm_bits64(LM_RND_SHIFT) + 1023) << 52);
    md = t > 130.0 ? INFINITY : md;
    md = t < -160.0 ? 0.0 : md;
    float m = (float)md;
    /* rint |y| and rint |y| / 2 through 2^23 (every float from 2^23 on is an integer): y is an
     * integer where the first is |y|, an odd one where the second is not |y| / 2 */
    float ay = fabsf(y), h = 0.5f * ay;
    float ri = ay < 0x1p23f ? (ay + 0x1p23f) - 0x1p23f : ay;
    float hi = h < 0x1p23f ? (h + 0x1p23f) - 0x1p23f : h;
    /* a negative x (-0 and -inf too) gives its sign to an odd integer power; a non-integer power
     * of a finite negative x is NaN */
    float nonint = x < 0 ? NAN : m;
    nonint = x < -FLT_MAX ? m : nonint;
    float neg = hi != h ? -m : m;
    neg = ri != ay ? nonint : neg;
    float r = lm_bits32(x) < 0 ? neg : m;
    r = x != x ? x : r;
    r = y != y ? y : r;
    r = y == 0 ? 1.0f : r;   /* x^0 and 1^y are 1 even for a NaN y or x */
    return x == 1.0f ? 1.0f : r;
}

#ifndef __CUDACC__   /* CUDA's pow is its own; the table below is host memory */
#include "vmath_pow_table.h"

/* log |x| as a pair h + *ll to ~2^-70 relative (y log |x| reaches 745, and an error e in it is e relative
 * in the result): |x| = 2^k z, z in [v, 2v) with v near sqrt(1/2); the table's interval j of z gives
 * 1/c and log c in two parts (c = 1 exactly for the interval around 1), r = z/c - 1 exact as a pair
 * through z * (1/c)'s product error (|r| <= 2^-8, no division), log z = log c + log1p r with r - r^2/2
 * as pairs and r^3/3 - ... - r^8/8 plain; k ln 2 with ln 2 in two parts. Subnormals scaled by 2^54
 * first. Three table reads (gathers where the loop vectorises) replace the divisions of
 * 2 atanh(f / (2 + f)), which left glibc's pow ahead. */
LM_VM double lm_log_pair(double ax, double *ll) {
    bool sub = ax < DBL_MIN;
    double as = sub ? ax * 0x1p54 : ax;
    int64_t u = lm_bits64(as) - LM_POW_OFF;
    /* u >> 52 through a shifted double's bits: AVX2 has no int64 -> double vector conversion, and a
     * (double) cast kept the loop scalar there */
    double k = (lm_from_bits64(lm_bits64(LM_RND_SHIFT) + (u >> 52)) - LM_RND_SHIFT) - (sub ? 54.0 : 0.0);
    int64_t j = (u >> LM_POW_TABLE_SHIFT) & 127;
    double z = lm_from_bits64((u & 0x000fffffffffffffLL) + LM_POW_OFF);
    double invc = lm_pow_invc[j], lch = lm_pow_logc[j], lcl = lm_pow_logc_lo[j];
    double p = z * invc, pl = fma(z, invc, -p);
    double r0 = p - 1.0;   /* exact: p in [0.99, 1.01] */
    double rh = r0 + pl, rl = (r0 - rh) + pl;   /* Fast2Sum: r0 is 0 or a multiple of p's ulp > |pl| */
    double s = rh * rh, sl = fma(rh, rh, -s);
    double poly = rh * s * (0x1.5555555555555p-2 + rh * (-0.25 + rh * (0.2 + rh * (-0x1.5555555555555p-3 +
                  rh * (0x1.2492492492492p-3 + rh * -0.125)))));
    double t1 = lch + rh, tb = t1 - lch, e1 = (lch - (t1 - tb)) + (rh - tb);   /* TwoSum */
    double hs = 0.5 * s, t2 = t1 - hs, e2 = (t1 - t2) - hs;   /* Fast2Sum: |t1| > r^2 / 2 */
    double low = lcl + e1 + e2 + rl - 0.5 * sl - rh * rl + poly;
    double kh = k * LM_LN2_HI, h = kh + t2, hb = h - kh;
    *ll = ((kh - (h - hb)) + (t2 - hb)) + (low + k * LM_LN2_LO);   /* TwoSum: either may be the larger */
    return h;
}

/* double: t = y log |x| as a pair, then lm_exp_mul's e^(th + tl); the special cases as lm_powf's */
LM_VM double lm_powd(double x, double y) {
    double ax = fabs(x);
    double axc = ax > DBL_MAX ? 1.0 : ax;   /* one condition a select: GCC if-converts those */
    axc = ax == 0 ? 1.0 : axc;
    double ll, lh = lm_log_pair(axc, &ll);
    lh = ax == 0 ? -INFINITY : lh;
    lh = ax > DBL_MAX ? INFINITY : lh;
    ll = axc != ax ? 0.0 : ll;
    double th = y * lh, tl = fma(y, lh, -th) + y * ll;
    th = ax == 1.0 ? 0.0 : th;   /* 1^y is 1 also for y = +-inf (-1 gets its sign below) */
    tl = ax == 1.0 ? 0.0 : tl;
    tl = axc != ax ? 0.0 : tl;
    double m = lm_exp_mul(th, tl, 1.0, 0.0);
    /* rint |y| and rint |y| / 2 through 2^52: y is an integer where the first is |y|, an odd one where
     * the second is not |y| / 2 */
    double ay = fabs(y), hy = 0.5 * ay;
    double ri = ay < 0x1p52 ? (ay + 0x1p52) - 0x1p52 : ay;
    double hi = hy < 0x1p52 ? (hy + 0x1p52) - 0x1p52 : hy;
    double nonint = x < 0 ? NAN : m;
    nonint = x < -DBL_MAX ? m : nonint;
    double neg = hi != hy ? -m : m;
    neg = ri != ay ? nonint : neg;
    double r = lm_bits64(x) < 0 ? neg : m;
    r = x != x ? x : r;
    r = y != y ? y : r;
    r = y == 0 ? 1.0 : r;   /* x^0 and 1^y are 1 even for a NaN y or x */
    return x == 1.0 ? 1.0 : r;
}
#endif

#endif
