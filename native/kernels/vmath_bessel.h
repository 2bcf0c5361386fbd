/* Bessel functions for double in plain arithmetic with selects, so loops over them vectorise (special_fns.h's
 * series and continued fractions, with their data-dependent loops, do not); float callers round the double
 * result. C side only; CUDA keeps special_fns.h's forms.
 *
 * I0, I1 (and e^-|x| I0, I1): below |x| = 10 the power series I_nu(x) = (x/2)^nu P_nu(x^2/4), P_nu a
 * least-squares fit of the relative error, all its coefficients positive (the series' are), its last Horner
 * steps compensated; x^2/4 as a pair, its low part put back through d/dz log P_nu (a cubic over z + z0, z0 the
 * nearest zero of P_nu, -(j_nu,1 / 2)^2: to 1%). From 10 on, e^-x I_nu(x) sqrt(x) = Q_nu(1/x), Q_nu -> 1/sqrt(2 pi)
 * as x -> inf; sqrt(x)'s rounding error put back; e^x through lm_exp_mul, which takes x to 746 (I0 is
 * finite to 713.98). Blocks whose every |x| < 10 take the series alone (the short forms). Coefficients:
 * tools/vmath_fit.py; tests/test_vmath_bessel.py measures them against mpmath. */
#ifndef LOOM_KERNELS_VMATH_BESSEL_H
#define LOOM_KERNELS_VMATH_BESSEL_H
#ifndef __CUDACC__

/* i0_small: degree 18 in v - 0.0 on [0.0, 25.0], relative error 1.40e-17 (2^-56.0) */
static const double lm_i0_small[19] = {
    0x1.c91b5d93711b5p-105, 0x1.d65674d113441p-98, 0x1.7eb45fde5d051p-89, 0x1.669fc37f60075p-81,
    0x1.3e84d051d2618p-73, 0x1.e714dd1483871p-66, 0x1.4198b206ac8afp-58, 0x1.69ca8396049a9p-51,
    0x1.56018a330c9bfp-44, 0x1.0b31327046689p-37, 0x1.522a43f863afbp-31, 0x1.522a43f6356bcp-25,
    0x1.02e85c089a045p-19, 0x1.23456789abbafp-14, 0x1.c71c71c71c733p-10, 0x1.c71c71c71c71bp-6,
    0x1.0000000000000p-2, 0x1.0000000000000p+0, 0x1.0000000000000p+0,
};
#define LM_I0_SMALL_LO0 0x1.b5eec542219b8p-69
#define LM_I0_SMALL_LO1 -0x1.57ce7c777160ep-63
/* i1_small: degree 18 in v - 0.0 on [0.0, 25.0], relative error 2.14e-17 (2^-55.4) */
static const double lm_i1_small[19] = {
    0x1.7a07125a20b28p-109, 0x1.ad42a1eeeaeeap-102, 0x1.6620bef545f7fp-93, 0x1.6715a3b0027a7p-85,
    0x1.53af2475a12cfp-77, 0x1.1656f71e47cb1p-69, 0x1.8bcf53564db7bp-62, 0x1.e263632694b49p-55,
    0x1.f17699abbda1ep-48, 0x1.ab81ea5ae7bdap-41, 0x1.2c9758dc1c7adp-34, 0x1.522a43f642211p-28,
    0x1.27e4fb778ac7ep-22, 0x1.845c8a0ce505bp-17, 0x1.6c16c16c16c1fp-12, 0x1.c71c71c71c71cp-8,
    0x1.5555555555555p-4, 0x1.0000000000000p-1, 0x1.0000000000000p+0,
};
#define LM_I1_SMALL_LO0 0x1.0f0af45374371p-71
#define LM_I1_SMALL_LO1 -0x1.6891a6d92c6fcp-66
/* i0_dlog: degree 3 in v - 0.0 on [0.0, 25.0], relative error 8.14e-03 (2^-6.9) */
static const double lm_i0_dlog[4] = {
    0x1.00bd5b91e8fc3p-13, -0x1.dc8fc0fc02be2p-8, 0x1.fcf1fa1c05146p-3, 0x1.7522fd0994aa7p+0,
};
#define LM_I0_DLOG_POLE 0x1.721fb80462bbbp+0
/* i1_dlog: degree 3 in v - 0.0 on [0.0, 25.0], relative error 2.51e-03 (2^-8.6) */
static const double lm_i1_dlog[4] = {
    0x1.e179174ff6ea6p-15, -0x1.010045a9bb2e6p-8, 0x1.7a7282b3de698p-3, 0x1.d7008f14e75d1p+0,
};
#define LM_I1_DLOG_POLE 0x1.d5d2b4189822cp+1
/* i0_large: degree 20 in v - 0.05 on [0.0, 0.1], relative error 5.49e-18 (2^-57.3) */
static const double lm_i0_large[21] = {
    0x1.cb1970700022fp+48, 0x1.a64334db05538p+43, -0x1.d24d761ad8bb2p+42, -0x1.27b9f57f91928p+38,
    0x1.97709816d4388p+35, 0x1.8db362ebfc96cp+31, -0x1.2fa43ab34dc42p+27, -0x1.2f1955cbd60f8p+24,
    -0x1.b91966d7ebac8p+18, 0x1.e504a4f162459p+14, 0x1.df466ce2c77b0p+11, 0x1.44636b3984981p+8,
    0x1.0609e375b1e91p+5, 0x1.239789079ff97p+2, 0x1.becd1c4f7bf62p-1, 0x1.cfe3d9b3696c1p-3,
    0x1.4a6243e9ecf8ep-4, 0x1.51a4c9541ef13p-5, 0x1.105877645b57ap-5, 0x1.b180803eb9f88p-5,
    0x1.9b255fef2de3ap-2,
};
#define LM_I0_LARGE_LO0 0x1.95d93e436ff0ep-56
#define LM_I0_LARGE_LO1 0x1.2a98d75080d5ep-60
/* i1_large: degree 20 in v - 0.05 on [0.0, 0.1], relative error 5.76e-18 (2^-57.3) */
static const double lm_i1_large[21] = {
    -0x1.dd02b3e3b3266p+48, -0x1.9d658a8a815a4p+43, 0x1.e6f219740b2e0p+42, 0x1.27553580a5f08p+38,
    -0x1.adaa90adaf4b5p+35, -0x1.954a336ab94c6p+31, 0x1.498014d6939ffp+27, 0x1.3bac85ff2f558p+24,
    0x1.b599c8d5350c6p+18, -0x1.07eb26fe3019bp+15, -0x1.fe8475510e5a7p+11, -0x1.5bdced89bef65p+8,
    -0x1.1dacd0fbb4a4cp+5, -0x1.44d0af40b3345p+2, -0x1.ff201459d7089p-1, -0x1.12e96cd0ab45ep-2,
    -0x1.9c80c4da2e649p-4, -0x1.cb8fe6825c79cp-5, -0x1.b9b7aa77fcf6ep-5, -0x1.3ca86a6e10330p-3,
    0x1.90bb5c37429aap-2,
};
#define LM_I1_LARGE_LO0 -0x1.8f71f5329cdb1p-56
#define LM_I1_LARGE_LO1 -0x1.d90da8390276dp-65

/* P_nu(z) as a pair for z = a^2 / 4, a < 10 (a constant nu picks the tables): the last six Horner steps
 * compensated, as the terms of z^2 to z^9 carry the sum at its top end; plain Horner where fast (float
 * results) */
LM_VM double lm_bessel_i_series(double a, int nu, bool fast, double *pl) {
    enum { N = sizeof(lm_i0_small) / sizeof(lm_i0_small[0]) };
    const double *c = nu ? lm_i1_small : lm_i0_small;
    double zh = 0.25 * (a * a), zl = 0.25 * fma(a, a, -(a * a));
    if (fast) {
        *pl = 0.0;
        return lm_poly(c, N, zh);
    }
    double l, h = lm_poly_comp(c, N, 6, zh, nu ? LM_I1_SMALL_LO0 : LM_I0_SMALL_LO0, nu ? LM_I1_SMALL_LO1 : LM_I0_SMALL_LO1, &l);
    double d = nu ? LM_POLY(lm_i1_dlog, zh) / (zh + LM_I1_DLOG_POLE) : LM_POLY(lm_i0_dlog, zh) / (zh + LM_I0_DLOG_POLE);
    *pl = l + zl * d * h;
    return h;
}

/* e^-a I_nu(a) for 10 <= a < inf as a pair: Q_nu(v) / sqrt(a), v = 1/a, with sh = q s + r1 exactly and
 * sqrt(a) = s (1 + (a - s^2) / (2a)); one rounded division where fast */
LM_VM double lm_bessel_i_asym(double a, int nu, bool fast, double *yl) {
    enum { N = sizeof(lm_i0_large) / sizeof(lm_i0_large[0]) };
    const double *c = nu ? lm_i1_large : lm_i0_large;
    double v = 1.0 / a, s = sqrt(a);
    if (fast) {
        *yl = 0.0;
        return lm_poly(c, N, v - 0.05) / s;
    }
    double rest, sh = lm_poly_pair(c, N, v - 0.05, nu ? LM_I1_LARGE_LO0 : LM_I0_LARGE_LO0, nu ? LM_I1_LARGE_LO1 : LM_I0_LARGE_LO1, &rest);
    double es = fma(-s, s, a);
    double q = sh / s, r1 = fma(-q, s, sh);
    double ql = (r1 + rest) * (s * v) - q * (0.5 * es * v);
    double h = q + ql;   /* |ql| < q: Fast2Sum */
    *yl = ql - (h - q);
    return h;
}

/* I_nu(|x|) (scaled: e^-|x| I_nu(|x|)) for nu 0 or 1, the series alone where series_only (the short forms),
 * to 2^-40 where fast; I1's sign is the caller's. nu and the flags are constants: each form's selects fold. */
LM_VM double lm_bessel_i(double x, int nu, bool scaled, bool series_only, bool fast) {
    double a = fabs(x);
    double as = a < 10.0 ? a : 0.0;
    double pl, ph = lm_bessel_i_series(as, nu, fast, &pl);
    double mh = nu ? (0.5 * as) * ph : ph, ml = nu ? fma(0.5 * as, ph, -mh) + (0.5 * as) * pl : pl;   /* (a/2)^nu P */
    double y = scaled ? lm_exp_mul(-as, 0.0, mh, ml) : mh + ml;
    if (!series_only) {
        double al = a < 10.0 ? 10.0 : (a < DBL_MAX ? a : DBL_MAX);
        double ql, qh = lm_bessel_i_asym(al, nu, fast, &ql);
        double big = scaled ? qh + ql : lm_exp_mul(al, 0.0, qh, ql);
        big = a > DBL_MAX ? (scaled ? 0.0 : INFINITY) : big;
        y = a < 10.0 ? y : big;
    }
    return x != x ? x : y;
}

/* lm_NAME and its short form (the same bits where |x| < 10), and the _f32 ones for float results */
#define LM_BESSEL_I_FORMS(NAME, NU, SCALED, ODD)                                                              \
    LM_VM double lm_##NAME(double x) { return lm_bessel_i_sign(lm_bessel_i(x, NU, SCALED, false, false), x, ODD); } \
    LM_VM double lm_##NAME##_short(double x) { return lm_bessel_i_sign(lm_bessel_i(x, NU, SCALED, true, false), x, ODD); } \
    LM_VM double lm_##NAME##_f32(double x) { return lm_bessel_i_sign(lm_bessel_i(x, NU, SCALED, false, true), x, ODD); } \
    LM_VM double lm_##NAME##_short_f32(double x) { return lm_bessel_i_sign(lm_bessel_i(x, NU, SCALED, true, true), x, ODD); }
LM_VM double lm_bessel_i_sign(double y, double x, bool odd) { return odd ? copysign(y, x) : y; }
LM_BESSEL_I_FORMS(i0, 0, false, false)
LM_BESSEL_I_FORMS(i0e, 0, true, false)
LM_BESSEL_I_FORMS(i1, 1, false, true)
LM_BESSEL_I_FORMS(i1e, 1, true, true)
LM_VM bool lm_bessel_i_short_ok(double x) { return fabs(x) < 10.0; }

#endif
#endif
