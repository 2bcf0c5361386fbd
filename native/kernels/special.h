/* Special functions shared by pointwise bodies (digamma, polygamma; erfinv on CUDA), in
 * double: float callers round the result. */
#ifndef LOOM_KERNELS_SPECIAL_H
#define LOOM_KERNELS_SPECIAL_H
#include <math.h>
#include <stdint.h>
#include "common.h"   /* LM_HD */

#define LM_PI 3.14159265358979323846

#ifdef __cplusplus
/* CUDA's form (the C side's is vmath_gamma.h's, which vectorises) */
/* psi(x): reflection below 0, recurrence up to 10, then the asymptotic series
 * (Bernoulli terms to x^-10, below 1e-13 relative there). psi(0) is -inf and
 * psi at a negative integer NaN, as PyTorch's. */
static inline LM_HD double lm_digamma(double x) {
    if (x == 0) return copysign(INFINITY, -x);
    if (x < 0) {
        if (x == floor(x)) return NAN;
        /* psi(1 - x) - psi(x) = pi / tan(pi x) */
        return lm_digamma(1 - x) - LM_PI / tan(LM_PI * x);
    }
    double acc = 0;
    while (x < 10) { acc -= 1 / x; x += 1; }
    double z = 1 / (x * x);
    double s = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132)))));
    return acc + log(x) - 0.5 / x - s;
}

#endif

/* Hurwitz zeta(s, q), s > 1: the terms summed directly up to a = q + k >= 6.5 + 0.75 s, the rest by
 * Euler-Maclaurin with 12 Bernoulli terms. That threshold keeps the first term left out (j = 13) below
 * 2^-54 of the tail's integral a^(1-s) / (s-1), so of the sum, for every s > 1 (the bound is tightest
 * near s = 5 and s = 50; test_special.py checks those against mpmath). At q a non-positive integer the
 * sum has a pole: +inf. */
static inline LM_HD double lm_hurwitz_zeta(double s, double q) {
    /* B_2j / (2j)!, j = 1..12 */
    static const double c2j[] = {0x1.5555555555555p-4, -0x1.6c16c16c16c17p-10, 0x1.1566abc011567p-15,
        -0x1.bbd779334ef0bp-21, 0x1.66a8f2bf70ebep-26, -0x1.22805d644267fp-31, 0x1.d6db2c4e09162p-37,
        -0x1.7da4e1f79955cp-42, 0x1.355871d652e9ep-47, -0x1.f57d968caacf1p-53, 0x1.967e1f09c376fp-58,
        -0x1.497d9033a2b5cp-63};
    if (q <= 0 && q == floor(q)) return INFINITY;
    double sum = 0, a = q;
    while (a < 6.5 + 0.75 * s) {
        double t = pow(a, -s);
        sum += t;
        /* a large s (polygamma of order 2^62) makes the terms vanish after the first few: stop there
           rather than walk s of them; the tail is smaller than the last term */
        if (a >= 1 && t <= 1e-17 * sum) return sum;
        a += 1;
    }
    double as = pow(a, -s), ia = 1 / a, ia2 = ia * ia;
    sum += as * a / (s - 1) + 0.5 * as;
    /* term j: B_2j / (2j)! * s (s+1) ... (s+2j-2) * a^(-s-2j+1) */
    double rising = s, ap = as * ia;
    for (int j = 1; j <= 12; j++) {
        double t = c2j[j - 1] * rising * ap;
        sum += t;
        if (fabs(t) < 1e-17 * fabs(sum)) break;
        rising *= (s + 2 * j - 1) * (s + 2 * j);
        ap *= ia2;
    }
    return sum;
}

/* polygamma(n, x) = (-1)^(n+1) n! zeta(n+1, x) for n >= 1; digamma for n = 0 */
static inline LM_HD double lm_polygamma(int64_t n, double x) {
    if (n == 0) return lm_digamma(x);
    if (x != x) return x;
    double f = 1;
    for (int64_t k = 2; k <= n && f < INFINITY; k++) f *= (double)k;   /* n! overflows past 170 */
    if (f == INFINITY)   /* n! / x^(n+1) outgrows every x: the order's sign, not inf * an underflowed zeta */
        return (n & 1) ? INFINITY : -INFINITY;
    return ((n & 1) ? f : -f) * lm_hurwitz_zeta((double)(n + 1), x);
}

/* polygamma's body: the C side takes vmath_gamma.h's trigamma for n = 1 (a loop invariant: GCC unswitches
 * the loop, and the n = 1 copy vectorises) */
#ifdef __cplusplus
#define LM_POLYGAMMA(n, x) lm_polygamma(n, x)
#else
#define LM_POLYGAMMA(n, x) ((n) == 1 ? lm_trigamma(x) : lm_polygamma(n, x))
#endif

#ifdef __cplusplus
/* CUDA's form (the C side's is vmath_erfinv.h's, which vectorises) */
/* erfinv: Giles' single-precision approximation ("Approximating the erfinv
 * function", 2010) as the start, then two Newton steps on erf(y) = x, which
 * bring it to double precision. +-1 give +-inf, outside [-1, 1] NaN. */
static inline LM_HD double lm_erfinv(double x) {
    if (x != x || x < -1 || x > 1) return NAN;
    if (x == 1 || x == -1) return copysign(INFINITY, x);
    double a = fabs(x), w = -log((1 - a) * (1 + a)), p;
    if (w < 5) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;  p = -0.00125372503 + p * w; p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;    p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3;
        p = -0.000200214257;
        p = 0.000100950558 + p * w; p = 0.00134934322 + p * w;  p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;  p = -0.0076224613 + p * w;  p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;     p = 2.83297682 + p * w;
    }
    double y = p * a;
    if (a <= 0.5) {
        for (int i = 0; i < 2; i++)   /* Newton on erf(y) = a; erf'(y) = 2/sqrt(pi) e^(-y^2) */
            y -= (erf(y) - a) / (1.1283791670955126 * exp(-y * y));
    } else {
        /* Newton on log erfc(y) = log(1 - a): 1 - a is exact here, where erf(y) would round to 1,
         * and log erfc is nearly quadratic, so the tail's rougher first guess converges too */
        double t = log(1 - a);
        for (int i = 0; i < 4; i++) {
            double c = erfc(y);
            y += (log(c) - t) * c / (1.1283791670955126 * exp(-y * y));
        }
    }
    return copysign(y, x);
}
#endif
#endif
