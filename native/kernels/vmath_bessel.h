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
 * tools/vmath_fit.py; tests/test_vmath_bessel.py measures them against mpmath.
 *
 * J0, J1: below |x| = 5, J0 = (z - j01^2)(z - j02^2) R0(z) and J1 = x (z - j11^2) R1(z), z = x^2 (Cephes' way
 * of keeping the relative accuracy at the zeros), each z - j^2 from z and j^2 as pairs; from 5 on Hankel's
 * J_nu = sqrt(2/(pi x)) (P cos chi - Q sin chi), chi = x - (2 nu + 1) pi/4, P and 8x Q polynomials in 1/x^2,
 * cos chi and sin chi from one reduction of x (lm_sincos_pio4), accurate at their zeros (near the zeros of
 * J_nu the error is absolute: a few ulp of the envelope sqrt(2/(pi x))). Blocks whose every |x| < 5 take
 * the first form alone. */
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

/* j0_small: degree 11 in v - 12.5 on [0.0, 25.0], relative error 5.29e-18 (2^-57.4) */
static const double lm_j0_small[12] = {
    -0x1.7fc2dc178e250p-92, 0x1.f0d483f7ecefap-83, -0x1.10bb3d5ae1330p-73, 0x1.f54fe442cb1cfp-65,
    -0x1.7a66ade7052f8p-56, 0x1.cac0f49c93776p-48, -0x1.b2142b8a28bc5p-40, 0x1.34b83fa1eb7c0p-32,
    -0x1.393745cda6e68p-25, 0x1.a2ea905336924p-19, -0x1.424e0f6ce465ep-13, 0x1.a1c5e862f307cp-9,
};
#define LM_J0_ZERO1 0x1.721fb80462bbbp+2, 0x1.db60c816c15d3p-52
#define LM_J0_ZERO2 0x1.e78a4a621dd6fp+4, -0x1.10d7c5048826bp-52
#define LM_J0_SMALL_LO0 -0x1.81f1e866ff5cap-63
#define LM_J0_SMALL_LO1 0x1.70a7a72a075e5p-67
/* j1_small: degree 12 in v - 12.5 on [0.0, 25.0], relative error 2.53e-17 (2^-55.1) */
static const double lm_j1_small[13] = {
    -0x1.c284b8709f938p-97, 0x1.3b65ac8abe6a9p-87, -0x1.792c117cc4a69p-78, 0x1.7cc73276e6288p-69,
    -0x1.3f0c637e41fd5p-60, 0x1.b318a519cfc97p-52, -0x1.d7381802e16abp-44, 0x1.88d6fbdab67a3p-36,
    -0x1.e3bd8ce3d27b5p-29, 0x1.9f348e9fa6590p-22, -0x1.c74a71d1878a8p-16, 0x1.128893a098463p-10,
    -0x1.041c9423ec767p-6,
};
#define LM_J1_ZERO1 0x1.d5d2b4189822cp+3, -0x1.c6a0d245172bap-54
#define LM_J1_SMALL_LO0 -0x1.bd941caf27affp-65
#define LM_J1_SMALL_LO1 0x1.3da1bd189203fp-66
/* j0_p: degree 19 in v - 0.02 on [0.0, 0.04], relative error 2.62e-18 (2^-58.4) */
static const double lm_j0_p[20] = {
    -0x1.14ef8ce77e48bp+67, 0x1.2b52da9cd01c8p+62, 0x1.d8bf3b55e24f4p+56, -0x1.dc8e76e734559p+51,
    -0x1.f96590cfa768dp+46, 0x1.22d1a09200f1cp+42, -0x1.beca5719d74f0p+35, 0x1.735d260a8ebdep+31,
    -0x1.7e7330d4c74fbp+27, 0x1.3704da2f68f97p+23, -0x1.0dd66e1acb740p+19, 0x1.048c9886e7b89p+15,
    -0x1.18608073c0e80p+11, 0x1.59963e9ae70b1p+7, -0x1.fca4806302838p+3, 0x1.dc24e2fd8e673p+0,
    -0x1.3ae014077a6bdp-2, 0x1.658d9f452b11cp-4, -0x1.0fdedf2597990p-4, 0x1.ff4d0e58750e7p-1,
};
#define LM_J0_P_LO0 -0x1.e02967ce87fe0p-56
#define LM_J0_P_LO1 -0x1.1fcdb05947381p-58
/* j0_q: degree 23 in v - 0.02 on [0.0, 0.04], relative error 4.23e-18 (2^-57.7) */
static const double lm_j0_q[24] = {
    0x1.00904c67b99b5p+94, -0x1.f2f8a51ddb630p+88, -0x1.80a6781ecece1p+84, 0x1.6f3dcea42eaf1p+79,
    0x1.438a722f3c343p+74, -0x1.395841e369512p+69, -0x1.ba70b1627b7e4p+62, 0x1.8b8e630e24cdcp+57,
    0x1.35bf1f26ae99ep+52, -0x1.5cb0096c17509p+47, 0x1.e6f196085b2ebp+41, -0x1.6264ef6982e5ep+37,
    0x1.1a7829b6c4483p+33, -0x1.b70116cb0d963p+28, 0x1.6bde07a6d04edp+24, -0x1.47983336d02c7p+20,
    0x1.44a191a5b1bb0p+16, -0x1.6a7c0f95496e7p+12, 0x1.d7c1e390a3e2fp+8, -0x1.78651f31165dcp+5,
    0x1.8f4da15407629p+2, -0x1.448acfa0e07cap+0, 0x1.0d26a95ae065fp-1, -0x1.fa53af1a412d6p-1,
};
#define LM_J0_Q_LO0 -0x1.833b6919c6252p-55
#define LM_J0_Q_LO1 -0x1.1aebc25a1095ep-57
/* j1_p: degree 19 in v - 0.02 on [0.0, 0.04], relative error 2.76e-18 (2^-58.3) */
static const double lm_j1_p[20] = {
    0x1.2482427e0f14dp+67, -0x1.3c96e8ffa68b7p+62, -0x1.f14fc4fa40d17p+56, 0x1.f5812a96a118dp+51,
    0x1.0bd45fba2eceap+47, -0x1.35054633d2788p+42, 0x1.e5566ea879fe3p+35, -0x1.9376158141476p+31,
    0x1.9df8502407f77p+27, -0x1.522b918025634p+23, 0x1.2714837b4f16fp+19, -0x1.1ebf1ec3d7fc0p+15,
    0x1.371594affcfa3p+11, -0x1.8399aaa5d3505p+7, 0x1.219542cccd325p+4, -0x1.155665eaf03d3p+1,
    0x1.7d4374dd3d195p-2, -0x1.d4d0e15ed4c28p-4, 0x1.cb0d39ff2b3c3p-4, 0x1.00961eaac1aa9p+0,
};
#define LM_J1_P_LO0 0x1.a1e870c402bf5p-54
#define LM_J1_P_LO1 0x1.cbf8e81c9d361p-58
/* j1_q: degree 23 in v - 0.02 on [0.0, 0.04], relative error 1.48e-18 (2^-59.2) */
static const double lm_j1_q[24] = {
    -0x1.0d28e6522bb64p+94, 0x1.05f685c31b04fp+89, 0x1.9310e199c3ebdp+84, -0x1.8119b7852b16ap+79,
    -0x1.534f6afc6b041p+74, 0x1.48ef9fb066ebap+69, 0x1.cdefe8d5288edp+62, -0x1.9ca2d5acb239dp+57,
    -0x1.47b5fea27b2c3p+52, 0x1.720c6027a1243p+47, -0x1.0602fa7f71762p+42, 0x1.7e293899cfaa7p+37,
    -0x1.30f3998af521dp+33, 0x1.dbce101a3dc46p+28, -0x1.8c3d923513bc4p+24, 0x1.66c057e1aa701p+20,
    -0x1.6605846a3a9c5p+16, 0x1.937353282a0bbp+12, -0x1.09d58fdd64903p+9, 0x1.aff443466f032p+5,
    -0x1.d7ace64694636p+2, 0x1.9461e6670827dp+0, -0x1.7debd3ee368c9p-1, 0x1.7e0025755b90ep+1,
};
#define LM_J1_Q_LO0 0x1.b7b5d241ae9a1p-53
#define LM_J1_Q_LO1 0x1.6e518b5fec301p-57

/* z - j^2 as a pair for z = zh + zl, j^2 = jh + jl (zh - jh exact near the zero, where it matters most) */
LM_VM double lm_bessel_j_diff(double zh, double zl, double jh, double jl, double *dl) {
    double e = 0.0, d = lm_two_sum(zh, -jh, &e);
    *dl = e + (zl - jl);
    return d;
}

/* below |x| = 5: m R(z), m = x^nu prod (z - j^2) as a pair, R as a pair (its first two coefficients in two
 * parts, z's low part put back through R' to 10%), one rounding at the end but for the small terms */
LM_VM double lm_bessel_j_series(double a, int nu) {
    enum { N0 = sizeof(lm_j0_small) / sizeof(lm_j0_small[0]), N1 = sizeof(lm_j1_small) / sizeof(lm_j1_small[0]) };
    double zh = a * a, zl = fma(a, a, -zh), u = zh - 12.5, rest, sh, mh, ml;
    if (nu) {
        sh = lm_poly_pair(lm_j1_small, N1, u, LM_J1_SMALL_LO0, LM_J1_SMALL_LO1, &rest);
        rest += zl * fma(2.0 * lm_j1_small[N1 - 3], u, lm_j1_small[N1 - 2]);
        double dl, d = lm_bessel_j_diff(zh, zl, LM_J1_ZERO1, &dl);
        mh = a * d;
        ml = fma(a, d, -mh) + a * dl;
    } else {
        sh = lm_poly_pair(lm_j0_small, N0, u, LM_J0_SMALL_LO0, LM_J0_SMALL_LO1, &rest);
        rest += zl * fma(2.0 * lm_j0_small[N0 - 3], u, lm_j0_small[N0 - 2]);
        double d1l, d1 = lm_bessel_j_diff(zh, zl, LM_J0_ZERO1, &d1l), d2l, d2 = lm_bessel_j_diff(zh, zl, LM_J0_ZERO2, &d2l);
        mh = d1 * d2;
        ml = fma(d1, d2, -mh) + (d1 * d2l + d1l * d2);
    }
    return fma(mh, sh, fma(mh, rest, ml * (sh + rest)));   /* ml is not small next to mh at a zero */
}

/* from |x| = 5 on (finite): Hankel's form, chi = x - pi/4 (J0) or chi - pi/2 (J1): J0 = A (P cos chi - Q sin
 * chi), J1 = A (P sin chi + Q cos chi), A = sqrt(2 / (pi x)), Q = (8x Q) / (8x) */
LM_VM double lm_bessel_j_asym(double a, int nu, bool short_only) {
    enum { NP = sizeof(lm_j0_p) / sizeof(lm_j0_p[0]), NQ = sizeof(lm_j0_q) / sizeof(lm_j0_q[0]) };
    double v = 1.0 / a, w = v * v, u = w - 0.02, rp, rq;
    double p = lm_poly_pair(nu ? lm_j1_p : lm_j0_p, NP, u, nu ? LM_J1_P_LO0 : LM_J0_P_LO0, nu ? LM_J1_P_LO1 : LM_J0_P_LO1, &rp);
    double q = lm_poly_pair(nu ? lm_j1_q : lm_j0_q, NQ, u, nu ? LM_J1_Q_LO0 : LM_J0_Q_LO0, nu ? LM_J1_Q_LO1 : LM_J0_Q_LO1, &rq);
    double qs = (q + rq) * (0.125 * v);
    double sn, cs;
    lm_sincos_pio4(a, short_only, &sn, &cs);
    double t = nu ? fma(p, sn, fma(rp, sn, qs * cs)) : fma(p, cs, fma(rp, cs, -qs * sn));
    /* A = sqrt(k), k = (2/pi)(1/a) = kh + kl (2/pi and 1/a each a pair), sqrt(k) = s + (k - s^2) / (2s) with
     * 1/(2s) = s a pi/4 */
    double ev = fma(-v, a, 1.0), kh = 0x1.45f306dc9c883p-1 * v;
    double kl = fma(0x1.45f306dc9c883p-1, v, -kh) + v * (-0x1.6b01ec5417056p-55 + 0x1.45f306dc9c883p-1 * ev);
    double sa = sqrt(kh), al = (fma(-sa, sa, kh) + kl) * (sa * a * 0x1.921fb54442d18p-1);
    return fma(t, sa, t * al);
}

/* J_nu(x), nu 0 or 1 (a constant), the first form alone where series_only (the short forms, |x| < 5); NaN at
 * +-inf as PyTorch's and SciPy's (cos inf), J1 odd */
LM_VM double lm_bessel_j(double x, int nu, bool series_only) {
    double a = fabs(x);
    double y = lm_bessel_j_series(a < 5.0 ? a : 0.0, nu);
    if (!series_only) {
        double big = lm_bessel_j_asym(a < 5.0 || a > DBL_MAX ? 5.0 : a, nu, false);
        big = a > DBL_MAX ? NAN : big;
        y = a < 5.0 ? y : big;
    }
    double yn = lm_bits64(x) < 0 ? -y : y;   /* J1(-x) = -J1(x), -0 included */
    y = nu ? yn : y;
    return x != x ? x : y;
}

LM_VM double lm_j0(double x) { return lm_bessel_j(x, 0, false); }
LM_VM double lm_j1(double x) { return lm_bessel_j(x, 1, false); }
LM_VM double lm_j0_short(double x) { return lm_bessel_j(x, 0, true); }
LM_VM double lm_j1_short(double x) { return lm_bessel_j(x, 1, true); }
LM_VM bool lm_bessel_j_short_ok(double x) { return fabs(x) < 5.0; }

#endif
#endif
