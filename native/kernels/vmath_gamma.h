/* digamma and trigamma for double in plain arithmetic with selects, so loops over them vectorise (special.h's
 * lm_digamma and lm_polygamma walk a data-dependent recurrence and call libm): for x > 0, psi(x) = psi(x + 10) -
 * sum 1/(x + j) and psi'(x) = psi'(x + 10) + sum 1/(x + j)^2 over j < 10 below 10, each sum one division of
 * two products accumulated over the ten terms (all positive: no cancellation inside); psi and psi' at y >= 10 by
 * their asymptotic series (Bernoulli terms to y^-18: below 2^-57 there), y's rounding error put back; x < 0 by
 * reflection with sin(pi x) and cos(pi x) from the exact reduction of vmath_sinc.h. Near the positive zero of
 * psi (1.4616...) psi(x + 10) and the sum cancel: the error there is absolute, a few ulp of psi(x + 10), as in
 * the recurrences PyTorch and SciPy use. C side only; CUDA keeps special.h's forms. */
#ifndef LOOM_KERNELS_VMATH_GAMMA_H
#define LOOM_KERNELS_VMATH_GAMMA_H
#ifndef __CUDACC__

/* y = x + 10 below 10 (else x) and its rounding error; *s1 = sum 1/(x + j), *s2 = sum 1/(x + j)^2 (j < 10) where
 * shifted, else 0 */
LM_VM double lm_psi_shift(double x, bool want_s1, double *yl, double *s1, double *s2) {
    bool sh = x < 10.0;
    double y = sh ? x + 10.0 : x;
    *yl = sh ? x - (y - 10.0) : 0.0;   /* Fast2Sum: 10 > x */
    double xs = sh ? x : 1.0, d = 1.0, dp = 0.0, n2 = 0.0, m2 = 1.0;
#pragma GCC unroll 10
    for (int j = 0; j < 10; j++) {   /* d = prod t, dp = d' (sum of the products leaving one t out); n2/m2 = sum 1/t^2 */
        double t = xs + j, t2 = t * t;
        if (want_s1) {
            dp = fma(dp, t, d);
            d *= t;
        } else {
            n2 = fma(n2, t2, m2);
            m2 *= t2;
        }
    }
    *s1 = want_s1 && sh ? dp / d : 0.0;
    *s2 = !want_s1 && sh ? n2 / m2 : 0.0;
    return y;
}

/* psi(x) for x > 0 */
LM_VM double lm_digamma_pos(double x) {
    double yl, s1, s2, y = lm_psi_shift(x, true, &yl, &s1, &s2);
    double v = 1.0 / y, w = v * v;
    double a = w * (1.0 / 12 - w * (1.0 / 120 - w * (1.0 / 252 - w * (1.0 / 240 - w * (1.0 / 132 - w * (691.0 / 32760 -
               w * (1.0 / 12 - w * (3617.0 / 8160 - w * (43867.0 / 14364)))))))));
    return (lm_log(y) - (s1 + (0.5 * v + a))) + yl * v;
}

/* psi'(x) for x > 0 */
LM_VM double lm_trigamma_pos(double x) {
    double yl, s1, s2, y = lm_psi_shift(x, false, &yl, &s1, &s2);
    double v = 1.0 / y, w = v * v;
    double a = v * w * (1.0 / 6 - w * (1.0 / 30 - w * (1.0 / 42 - w * (1.0 / 30 - w * (5.0 / 66 - w * (691.0 / 2730 -
               w * (7.0 / 6 - w * (3617.0 / 510 - w * (43867.0 / 798)))))))));
    return s2 + (v + (0.5 * w + a)) - yl * w;
}

/* psi: psi(1 - x) - pi cot(pi x) below 0, -inf at +0 and +inf at -0, NaN at the negative integers and -inf, as
 * PyTorch's */
LM_VM double lm_digamma(double x) {
    double s, c, r = lm_sincospi(x < 0 ? x : 0.5, &s, &c);
    double y = lm_digamma_pos(x < 0 ? 1.0 - x : (x > 0 ? x : 1.0));
    double q = c / s;   /* cot(pi x) = (cos(pi x) / pi) / (sin(pi x) / pi) */
    double neg = y - fma(0x1.921fb54442d18p+1, q, 0x1.1a62633145c07p-53 * q);   /* pi in two parts */
    neg = r == rint(r) ? NAN : neg;
    y = x < 0 ? neg : y;
    y = x == 0 ? copysign(INFINITY, -x) : y;
    y = x > DBL_MAX ? x : y;
    return x != x ? x : y;
}

/* psi': pi^2 / sin^2(pi x) - psi'(1 - x) below 0, +inf at 0, the negative integers and -inf (SciPy's, as
 * lm_polygamma's zeta gives), 0 at +inf */
LM_VM double lm_trigamma(double x) {
    double s, c, r = lm_sincospi(x < 0 ? x : 0.5, &s, &c);
    double y = lm_trigamma_pos(x < 0 ? 1.0 - x : (x > 0 ? x : 1.0));
    double neg = 1.0 / (s * s) - y;
    neg = r == rint(r) ? INFINITY : neg;
    y = x < 0 ? neg : y;
    y = x == 0 ? INFINITY : y;
    y = x > DBL_MAX ? 0.0 : y;
    y = x < -DBL_MAX ? INFINITY : y;
    return x != x ? x : y;
}

#endif
#endif
