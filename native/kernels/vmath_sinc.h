/* sinc for double in plain arithmetic with selects, so loops over it vectorise (special_fns.h's lm_sinc calls
 * libm's fmod and sin): sinc x = (sin(pi r) / pi) / x with r = x - 2 rint(x / 2) in [-1, 1] (exact), r = n/2 +
 * f, |f| <= 1/4, and sin(pi r) / pi by the quadrant n from sin(pi f) / pi = f P(f^2) or cos(pi f) / pi =
 * Q(f^2), each rounded once before the division (no rounded pi x). Integers give +0 / x, as before; NaN at
 * +-inf (sin inf), 1 at 0. Coefficients: tools/vmath_fit.py; tests/test_vmath_trig.py measures it. C side
 * only; CUDA keeps special_fns.h's. */
#ifndef LOOM_KERNELS_VMATH_SINC_H
#define LOOM_KERNELS_VMATH_SINC_H
#ifndef __CUDACC__

/* sinpi: degree 8 in v - 0.0 on [0.0, 0.0625], relative error 1.54e-19 (2^-62.5) */
static const double lm_sinpi[9] = {
    0x1.0d9705e9ea637p-22, -0x1.d4207b5ff2559p-18, 0x1.374717e674f00p-13, -0x1.33816aa326f28p-9,
    0x1.ac6805cf34316p-6, -0x1.86a8e4720db62p-3, 0x1.9f9cb402bc46cp-1, -0x1.a51a6625307d3p+0,
    0x1.0000000000000p+0,
};
#define LM_SINPI_LO0 -0x1.f2ab40979393ep-81
#define LM_SINPI_LO1 -0x1.186eea4cb7b16p-55
/* cospi: degree 8 in v - 0.0 on [0.0, 0.0625], relative error 1.11e-18 (2^-59.6) */
static const double lm_cospi[9] = {
    0x1.6c5b8278ef736p-20, -0x1.1763dda5b4bcep-15, 0x1.4204dcc56fa8bp-11, -0x1.0d2cf6d14b6d9p-7,
    0x1.32d2cce62a907p-4, -0x1.b33a5df478e72p-2, 0x1.4abbce625be53p+0, -0x1.921fb54442d18p+0,
    0x1.45f306dc9c883p-2,
};
#define LM_COSPI_LO0 -0x1.6b01f236fcd27p-56
#define LM_COSPI_LO1 -0x1.1a537cd1ca963p-54

/* sin(pi x) / pi and cos(pi x) / pi for a finite x, and r (x reduced to [-1, 1], exactly) */
LM_VM double lm_sincospi(double x, double *sn, double *cs) {
    double r = x - 2.0 * rint(0.5 * x), n = rint(2.0 * r), f = r - 0.5 * n, z = f * f;
    double rs, ps = lm_poly_pair(lm_sinpi, 9, z, LM_SINPI_LO0, LM_SINPI_LO1, &rs);
    double rc, pc = lm_poly_pair(lm_cospi, 9, z, LM_COSPI_LO0, LM_COSPI_LO1, &rc);
    double s = fma(f, ps, f * rs), c = pc + rc;
    int64_t q = lm_bits64(n + LM_RND_SHIFT) - lm_bits64(LM_RND_SHIFT);
    double sq = (q & 1) ? c : s, cq = (q & 1) ? -s : c;
    *sn = (q & 2) ? -sq : sq;
    *cs = (q & 2) ? -cq : cq;
    return r;
}

LM_VM double lm_sinc(double x) {
    double v, c, r = lm_sincospi(x, &v, &c);
    v = r == rint(r) ? 0.0 : v;
    double y = v / x;
    y = x == 0 ? 1.0 : y;
    return x != x ? x : y;
}

#endif
#endif
