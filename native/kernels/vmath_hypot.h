/* hypot in plain arithmetic, so loops over it vectorise (glibc's hypot and hypotf do not).
 * Special values as C99 (F.10.4.3): +inf where either argument is infinite, a NaN in the other
 * included; NaN where either is NaN otherwise; hypot(x, +-0) = |x|.
 * Included by common.h after vmath.h. */
#ifndef LOOM_KERNELS_VMATH_HYPOT_H
#define LOOM_KERNELS_VMATH_HYPOT_H

/* double: a = max(|x|, |y|), b = min, scaled by 2^-600 above 2^500 and by 2^600 below 2^-500
 * (exact but for bits of b far below the result's), so a^2 + b^2 neither overflows nor loses a's
 * bits to underflow; then sqrt(fma(a, a, b^2)): the sum rounds twice (b^2, then the fma), under
 * 2^-52 relative, the root halves that and rounds once: within 1.5 ulp (tests/test_vmath_hypot.py
 * measures it). sqrt(a^2) is a exactly, so b = 0 gives |x|. */
LM_VM double lm_hypot(double x, double y) {
    double ax = fabs(x), ay = fabs(y);
    double a = ax > ay ? ax : ay, b = ax > ay ? ay : ax;
    double s = a > 0x1p500 ? 0x1p-600 : 1.0, u = a > 0x1p500 ? 0x1p600 : 1.0;
    s = a < 0x1p-500 ? 0x1p600 : s;
    u = a < 0x1p-500 ? 0x1p-600 : u;
    double as = a * s, bs = b * s;
    double r = sqrt(fma(as, as, bs * bs)) * u;
    r = x != x ? x : r;
    r = y != y ? y : r;
    return ax > DBL_MAX || ay > DBL_MAX ? INFINITY : r;
}

/* float: the squares and their sum in double, exact but for the sum's rounding (2^-53), so the
 * double root is within 2^-53 of hypot and one rounding to float follows */
LM_VM float lm_hypotf(float x, float y) {
    double dx = x, dy = y;
    float r = (float)sqrt(dx * dx + dy * dy);
    r = x != x ? x : r;
    r = y != y ? y : r;
    return fabsf(x) > FLT_MAX || fabsf(y) > FLT_MAX ? INFINITY : r;
}

#endif
