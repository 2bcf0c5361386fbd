/* float32's lgamma, zeta and igamma (in double, below), digamma and trigamma for double in plain arithmetic with
 * selects, so loops over them vectorise (libm's lgammaf writes signgam; special.h's lm_digamma and lm_polygamma
 * walk a data-dependent recurrence and call libm): for x > 0, psi(x) = psi(x + 10) - sum 1/(x + j) and psi'(x) =
 * psi'(x + 10) + sum 1/(x + j)^2 over j < 10 below 10, each sum one division of two products accumulated over the
 * ten terms (all positive: no cancellation inside); psi and psi' at y >= 10 by their asymptotic series (Bernoulli
 * terms to y^-18: below 2^-57 there), y's rounding error put back; x < 0 by reflection with sin(pi x) and cos(pi
 * x) from the exact reduction of vmath_sinc.h. Near the positive zero of psi (1.4616...) psi(x + 10) and the sum
 * cancel: the error there is absolute, a few ulp of psi(x + 10), as in the recurrences PyTorch and SciPy use. C
 * side only; CUDA keeps special.h's forms. */
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

/* 1/Gamma(1 + f): degree 14 in f - 0.5 on [0, 1], absolute error 4.1e-17 (tools/vmath_fit.py rgamma; 1/Gamma
 * is entire, so its fits converge fast) */
static const double lm_rgamma[15] = {
    -0x1.826a5aa845764p-24, 0x1.3d1d48621c7f9p-24, 0x1.217128c6a4734p-19, -0x1.d27fb0958996cp-17,
    0x1.a963867b157cep-16, 0x1.3f84fbacf6632p-13, -0x1.232bd85edd4acp-10, 0x1.15f7ef626246ap-9,
    0x1.b16203e58badfp-8, -0x1.5955cc389c842p-5, 0x1.a18540be330b4p-5, 0x1.669be41a924cbp-3,
    -0x1.0da5a671c048ap-1, -0x1.514d3d905842cp-5, 0x1.20dd750429b6dp+0,
};

/* lgamma(x) for x > 0, to float accuracy (float32's lgamma, in double): below 8 the log of Gamma(x) =
 * (1 + f) ... (n - 1 + f) / (1/Gamma(1 + f)) (divided by f where n = 0), x = n + f, whose relative error
 * (~2^-53) is lgamma's absolute error: near its zeros at 1 and 2, where lgamma ~ |x - 1| / 2 >= 2^-25 on
 * floats, that is under an ulp of float. From 8 on Stirling's series, (x - 1/2)(log x - 1) + (log(2 pi) - 1)/2
 * + 1/(12 x) - ..., to x^-5 (the next term below 2^-34 relative). One lm_log serves both: the product's, or
 * log x. Exact 0 at 1 and 2, as PyTorch's. */
LM_VM double lm_lgamma_pos_f32(double x) {
    double xs = x < 8.0 ? x : 1.0, n = floor(xs), f = xs - n;
    double p = 1.0;
#pragma GCC unroll 6
    for (int j = 1; j < 7; j++)
        p *= n > j ? f + j : 1.0;
    double rg = LM_POLY(lm_rgamma, f - 0.5);
    double g = p / (n < 1.0 ? rg * f : rg);
    double xl = x < 8.0 ? 8.0 : x;
    double l = lm_log(x < 8.0 ? g : xl);
    double v = 1.0 / xl, w = v * v;
    double big = (xl - 0.5) * (l - 1.0) + (0.41893853320467274178 + v * (1.0 / 12 - w * (1.0 / 360 - w * (1.0 / 1260))));
    double y = x < 8.0 ? l : big;
    y = x == 1.0 ? 0.0 : y;
    return x == 2.0 ? 0.0 : y;
}

/* float32's lgamma in double: log(pi / |sin(pi x)|) - lgamma(1 - x) below 0 (lm_sincospi gives sin(pi x) / pi);
 * +inf at 0, the negative integers (every float from -2^23 down) and +-inf, as PyTorch's. The near-cancellation
 * at lgamma's negative zeros is of terms near 1, each within 2^-52: absolute, below an ulp of float there. */
LM_VM double lm_lgamma_f32(double x) {
    double s, c, r = lm_sincospi(x < 0 && x > -0x1p52 ? x : 0.5, &s, &c);
    double y = lm_lgamma_pos_f32(x < 0 ? 1.0 - x : x);
    double neg = -lm_log(fabs(s)) - y;
    neg = r == rint(r) ? INFINITY : neg;
    y = x < 0 ? neg : y;
    y = x <= -0x1p52 ? INFINITY : y;
    y = x == 0 ? INFINITY : y;
    return x != x ? x : y;
}

/* Hurwitz zeta(x, q) to float accuracy (float32's, in double) where 1 < x <= 16 and 0 < q <= FLT_MAX
 * (lm_zeta_f32_ok; special_fns.h's lm_zeta elsewhere): the first six terms of sum (q + k)^-x, then
 * Euler-Maclaurin at a = q + 6, a^(1-x) / (x - 1) + a^-x / 2 + its B_2 to B_8 terms (truncation below 2^-28
 * relative there), each power e^(-x log(q + k)) (the product rounds by 2^-53 |x log(q + k)| < 2^-44), so
 * the loop vectorises where lm_zeta's data-dependent sum calls pow */
LM_VM bool lm_zeta_f32_ok(double x, double q) { return (x > 1.0) & (x <= 16.0) & (q > 0.0) & (q <= FLT_MAX); }

LM_VM double lm_zeta_f32_sum(double x, double q) {
    double s = 0.0;
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++)
        s += lm_exp(-x * lm_log(q + k));
    double a = q + 6.0, ia = 1.0 / a, w = ia * ia, p = lm_exp(-x * lm_log(a));   /* p = a^-x */
    double em = p * ia * x * (1.0 / 12 - w * (x + 1.0) * (x + 2.0) * (1.0 / 720 - w * (x + 3.0) * (x + 4.0) *
                (1.0 / 30240 - w * (x + 5.0) * (x + 6.0) * (1.0 / 1209600))));
    return s + (a * p / (x - 1.0) + (0.5 * p + em));
}

/* the regularized incomplete gamma functions P(a, x) (upper: Q = 1 - P) to float accuracy (float32's, in double)
 * where 0 < a <= 12 and 0 <= x <= 64 (lm_igamma_f32_ok; special_fns.h's forms elsewhere): below x = a + 1 the
 * series x^a e^-x / Gamma(a + 1) sum x^n / ((a + 1) ... (a + n)), above Legendre's continued fraction for Q, as
 * special_fns.h, but each to a fixed depth, 32 (both within 2^-30 of float's ulp on that domain), the series as
 * one quotient of two products and the fraction through Wallis' recurrence (no division inside either: its
 * terms stay below 2^300), so the loop vectorises */
LM_VM bool lm_igamma_f32_ok(double a, double x) { return (a > 0.0) & (a <= 12.0) & (x >= 0.0) & (x <= 64.0); }

LM_VM double lm_igamma_f32_sum(double a, double x, bool upper) {
    double num = 1.0, den = 1.0, xn = 1.0;
#pragma GCC unroll 32
    for (int n = 1; n < 32; n++) {
        double t = a + n;
        den *= t;
        xn *= x;
        num = fma(num, t, xn);
    }
    double ap = 1.0, bp = 0.0, an = 0.0, bn = 1.0;   /* Wallis: A_-1, B_-1, A_0, B_0 of 1 / (b_0 + a_1 / (b_1 + ...)) */
#pragma GCC unroll 32
    for (int n = 1; n <= 32; n++) {
        double p = n == 1 ? 1.0 : (n - 1) * (a - (n - 1)), q = x + (2 * n - 1) - a;
        double an1 = fma(q, an, p * ap), bn1 = fma(q, bn, p * bp);
        ap = an;
        bp = bn;
        an = an1;
        bn = bn1;
    }
    double e = lm_exp(a * lm_log(x) - x - lm_lgamma_pos_f32(a));   /* x^a e^-x / Gamma(a) */
    double ps = e / a * (num / den), qc = e * (an / bn);
    bool series = x < a + 1.0;
    double r = upper ? (series ? 1.0 - ps : qc) : (series ? ps : 1.0 - qc);
    return r;
}

#endif
#endif
