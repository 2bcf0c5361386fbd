/* scipy.special-style functions for the pointwise bodies of ops/special.yaml: plain C
 * over double (float callers round the result), no _Generic and no statement
 * expressions, so a CUDA build can compile them as they are. Methods are the textbook
 * ones (series where terms are all positive, continued fractions or asymptotic series
 * where they are not), each good to a few ulp in double against SciPy in the tests. */
#ifndef LOOM_KERNELS_SPECIAL_FNS_H
#define LOOM_KERNELS_SPECIAL_FNS_H
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include "special.h"

#define LM_SQRT2 1.41421356237309504880
#define LM_SQRT2PI 2.50662827463100050242
#define LM_SQRTPI 1.77245385090551602730

#ifdef __cplusplus
/* CUDA's forms (the C side's are vmath_erf.h's, which vectorise) */
/* exp(x*x) with x*x split into its rounded value and the rounding error, so large x loses
 * no more than exp's own error */
static inline LM_HD double lm_exp_sq(double x) {
    double hi = x * x, lo = fma(x, x, -hi);
    return exp(hi) * (1 + lo);
}

/* erfcx(x) = exp(x^2) erfc(x): directly below 10, else the continued fraction
 * erfcx(x) = 1/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))) evaluated backwards */
static inline LM_HD double lm_erfcx(double x) {
    if (x != x) return x;
    if (x < 0) {
        if (x < -26.7) return INFINITY;
        return 2 * lm_exp_sq(x) - lm_erfcx(-x);
    }
    if (x < 10) return lm_exp_sq(x) * erfc(x);
    if (x > 1e150) return 1 / (LM_SQRTPI * x);
    double f = x;
    for (int k = 60; k >= 1; k--) f = x + (k * 0.5) / f;
    return 1 / (LM_SQRTPI * f);
}

/* the standard normal CDF */
static inline LM_HD double lm_ndtr(double x) {
    double z = x / LM_SQRT2;
    return z < -1 ? 0.5 * erfc(-z) : 0.5 * (1 + erf(z));
}

/* log of the normal CDF: through erfcx in the far left tail, where the CDF underflows */
static inline LM_HD double lm_log_ndtr(double x) {
    double z = x / LM_SQRT2;
    if (x < -1) return log(lm_erfcx(-z) / 2) - z * z;
    return log1p(-0.5 * erfc(z));
}


/* the inverse normal CDF: Acklam's rational start (1e-9 relative), then one Halley step on
 * ndtr(x) = p, which makes it accurate to double precision */
static inline LM_HD double lm_ndtri(double p) {
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    if (p != p || p < 0 || p > 1) return NAN;
    if (p == 0) return -INFINITY;
    if (p == 1) return INFINITY;
    double x, q, r;
    if (p < 0.02425 || p > 1 - 0.02425) {
        q = sqrt(-2 * log(p < 0.5 ? p : 1 - p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        if (p > 0.5) x = -x;
    } else {
        q = p - 0.5;
        r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    /* Halley on the tail that is small, so the residual keeps its relative precision */
    double e = p < 0.5 ? 0.5 * erfc(-x / LM_SQRT2) - p : -(0.5 * erfc(x / LM_SQRT2) - (1 - p));
    double u = e * LM_SQRT2PI * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

#endif

#ifdef __cplusplus
/* CUDA's forms (the C side's are vmath_bessel.h's, which vectorise) */
/* exp(-|x|) I_nu(|x|) for nu in {0, 1}: the power series (all terms positive) up to 25,
 * the asymptotic series e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k beyond */
static inline LM_HD double lm_bessel_ie(int nu, double x) {
    x = fabs(x);
    if (x <= 25) {
        double q = x * x / 4, term = nu ? x / 2 : 1, sum = term;
        for (int k = 1; k < 500; k++) {
            term *= q / ((double)k * (k + nu));
            sum += term;
            if (term < 1e-17 * sum) break;
        }
        return sum * exp(-x);
    }
    double mu = 4.0 * nu * nu, term = 1, sum = 1;
    for (int k = 1; k < 60; k++) {
        double t = term * -(mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * x);
        if (fabs(t) >= fabs(term)) break;
        term = t;
        sum += term;
        if (fabs(term) < 1e-17 * fabs(sum)) break;
    }
    return sum / sqrt(2 * LM_PI * x);
}

static inline LM_HD double lm_i0e(double x) { return x != x ? x : lm_bessel_ie(0, x); }
static inline LM_HD double lm_i1e(double x) { return x != x ? x : copysign(lm_bessel_ie(1, x), x); }
static inline LM_HD double lm_i0(double x) {
    return x != x ? x : fabs(x) > 713 ? INFINITY : lm_bessel_ie(0, x) * exp(fabs(x));
}
static inline LM_HD double lm_i1(double x) {
    return x != x ? x : fabs(x) > 713 ? copysign(INFINITY, x) : copysign(lm_bessel_ie(1, x) * exp(fabs(x)), x);
}

#endif

#ifdef __cplusplus
/* CUDA's forms (the C side's are vmath_bessel.h's, which vectorise) */
/* J_nu(x), nu in {0, 1}, x >= 0: Miller's backward recurrence normalized by
 * J_0 + 2 sum J_2k = 1 up to 25, Hankel's asymptotic expansion beyond */
static inline LM_HD double lm_bessel_j(int nu, double x) {
    if (x < 1e-8) return nu ? x / 2 : 1 - x * x / 4;   /* where the recurrence's 2k/x would overflow */
    if (x <= 25) {
        int n = 2 * (int)((x + 40) / 2);
        double next = 0, cur = 1e-30, norm = 0, jnu = 0;
        for (int k = n; k >= 1; k--) {
            double prev = 2.0 * k / x * cur - next;   /* J_{k-1} */
            next = cur;
            cur = prev;
            if (k - 1 == nu) jnu = cur;
            if ((k - 1) % 2 == 0 && k - 1 > 0) norm += 2 * cur;
            if (fabs(cur) > 1e250) { cur *= 1e-250; next *= 1e-250; norm *= 1e-250; jnu *= 1e-250; }
        }
        norm += cur;
        return jnu / norm;
    }
    double mu = 4.0 * nu * nu, p = 1, q = 0, term = 1;
    for (int k = 1; k < 60; k++) {
        double t = term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * x);
        if (fabs(t) >= fabs(term) && k > 2) break;
        term = t;
        /* a_k / x^k: even k go to P with sign (-1)^(k/2), odd k to Q with sign (-1)^((k-1)/2) */
        if (k % 2 == 0) p += (k % 4 == 0 ? term : -term);
        else q += ((k - 1) % 4 == 0 ? term : -term);
        if (fabs(term) < 1e-17) break;
    }
    double chi = x - (nu * 0.5 + 0.25) * LM_PI;
    return sqrt(2 / (LM_PI * x)) * (p * cos(chi) - q * sin(chi));
}

static inline LM_HD double lm_j0(double x) { return x != x ? x : lm_bessel_j(0, fabs(x)); }
static inline LM_HD double lm_j1(double x) { return x != x ? x : copysign(1.0, x) * lm_bessel_j(1, fabs(x)); }

#endif

/* Hurwitz zeta(x, q) as scipy.special.zeta: inf at x = 1, NaN below (and for q < 0 where
 * q^-x is not real). Large x sums the few terms that matter directly; lm_hurwitz_zeta's
 * loop up to q = 10 + x would not end. */
static inline LM_HD double lm_zeta(double x, double q) {
    /* the order of Cephes' checks, which scipy and PyTorch share (NaN x with q = 0 is inf) */
    if (x == 1) return INFINITY;
    if (x < 1) return NAN;
    if (q <= 0) {
        if (q == floor(q)) return INFINITY;
        if (x != floor(x) || q < -1e6) return NAN;
    }
    if (x != x || q != q) return NAN;
    if (isinf(q)) return 0;
    if (x > 50) {   /* where q^-x underflows Cephes' sum is 0, or NaN once its x^24 overflows (scipy, PyTorch) */
        double sum = 0;
        for (int k = 0; k < 2000000; k++) {
            double t = pow(q + k, -x);
            sum += t;
            if (q + k > 0 && t <= 1e-17 * fabs(sum)) break;
        }
        return sum == 0 ? (q > 1e8 || pow(x, 24) < INFINITY ? 0 : NAN) : sum;
    }
    return lm_hurwitz_zeta(x, q);
}

/* the regularized incomplete gamma functions P(a, x) (lower) and Q = 1 - P (upper): the
 * series for P below x = a + 1, Q's continued fraction above */
/* x^a e^-x / Gamma(a); for large a through Stirling's series, so that a log x and lgamma(a),
 * both huge, do not cancel */
static inline LM_HD double lm_gamma_prefix(double a, double x) {
    if (a < 100) return exp(a * log(x) - x - lgamma(a));   /* Stirling below would need more terms */
    double t = (x - a) / a, ia = 1 / a;
    double corr = ia * (1.0 / 12 - ia * ia * (1.0 / 360 - ia * ia / 1260));
    return exp(a * (log1p(t) - t) + 0.5 * log(a) - 0.5 * log(2 * LM_PI) - corr);
}

/* Temme's leading term for very large a: P(a, x) ~ erfc(-eta sqrt(a / 2)) / 2 with
 * eta^2 / 2 = x/a - 1 - log(x/a); off by O(1/sqrt(a)) (below 1e-4 relative for a > 1e8) */
static inline LM_HD double lm_gammainc_temme(double a, double x, bool upper) {
    double l = x / a, d = l - 1 - log(l);
    double eta = (l < 1 ? -1 : 1) * sqrt(2 * (d > 0 ? d : 0));
    return 0.5 * erfc((upper ? 1 : -1) * eta * sqrt(a / 2));
}

static inline LM_HD double lm_gammainc_series(double a, double x) {
    double term = 1 / a, sum = term;
    for (int n = 1; n < 200000; n++) {
        term *= x / (a + n);
        sum += term;
        if (fabs(term) <= 0x1p-54 * fabs(sum)) break;
    }
    return sum * lm_gamma_prefix(a, x);
}

/* Q's continued fraction through its convergents p_k / q_k: the three-term recurrences are the only
 * chain from one step to the next (a multiply and a fused multiply-add), so the division each step
 * makes for the convergence test overlaps the next step; Lentz's form puts two divisions on it. */
static inline LM_HD double lm_gammaincc_cf(double a, double x) {
    double y = 1 - a, z = x + y + 1, k = 0;
    double pm2 = 1, qm2 = x, pm1 = x + 1, qm1 = z * x, h = pm1 / qm1;
    for (int i = 0; i < 200000; i++) {
        k += 1;
        y += 1;
        z += 2;
        double yk = y * k, p = pm1 * z - pm2 * yk, q = qm1 * z - qm2 * yk;
        pm2 = pm1; pm1 = p; qm2 = qm1; qm1 = q;
        if (fabs(p) > 0x1p500) { pm2 *= 0x1p-500; pm1 *= 0x1p-500; qm2 *= 0x1p-500; qm1 *= 0x1p-500; }
        if (q != 0) {
            double r = p / q, d = fabs(h - r);
            h = r;
            if (d <= 0x1p-53 * fabs(r)) break;
        }
    }
    return h * lm_gamma_prefix(a, x);
}

static inline LM_HD double lm_gammainc(double a, double x) {
    if (a != a || x != x || a < 0 || x < 0) return NAN;
    if (a == 0) return x > 0 ? 1 : NAN;
    if (x == 0) return 0;
    if (isinf(a)) return isinf(x) ? NAN : 0;
    if (isinf(x)) return 1;
    if (a > 1e8) return lm_gammainc_temme(a, x, false);
    return x < a + 1 ? lm_gammainc_series(a, x) : 1 - lm_gammaincc_cf(a, x);
}

static inline LM_HD double lm_gammaincc(double a, double x) {
    if (a != a || x != x || a < 0 || x < 0) return NAN;
    if (a == 0) return x > 0 ? 0 : NAN;
    if (x == 0) return 1;
    if (isinf(a)) return isinf(x) ? NAN : 1;
    if (isinf(x)) return 0;
    if (a > 1e8) return lm_gammainc_temme(a, x, true);
    return x < a + 1 ? 1 - lm_gammainc_series(a, x) : lm_gammaincc_cf(a, x);
}

#ifdef __cplusplus
/* CUDA's form (the C side's is vmath_sinc.h's, which vectorises) */
/* sin(pi x) / (pi x) with sin(pi x) reduced exactly (x mod 2), 1 at 0, NaN at +-inf */
static inline LM_HD double lm_sinc(double x) {
    if (x != x || isinf(x)) return NAN;   /* sin(inf) is NaN: NumPy's and PyTorch's value */
    if (x == 0) return 1;
    double r = fmod(x, 2.0);   /* exact */
    double s = sin(LM_PI * r);
    if (r == floor(r)) s = 0;
    return s / (LM_PI * x);
}

#endif

/* x log1p(y), 0 where x is 0 unless y is NaN */
static inline LM_HD double lm_xlog1py(double x, double y) {
    if (y != y) return y;
    return x == 0 ? 0 : x * log1p(y);
}
#endif
