/* erfc and erfinv for float in plain arithmetic, so loops over them vectorise (libm's erfc and
 * special.h's lm_erfinv, with its branches and Newton loops, do not). erfc in double, where the
 * error of the fit and of the steps stays far below a float ulp, and the result rounds once;
 * erfinv in float (twice the lanes), within 2 ulp.
 * Included by common.h after vmath.h. */
#ifndef LOOM_KERNELS_VMATH_ERF_H
#define LOOM_KERNELS_VMATH_ERF_H

/* Giles' form ("Approximating the erfinv function", 2010): erfinv(x) = x p(w), w = -log(1 - x^2), p a
 * polynomial in w - 2.5 below w = 5 and in sqrt(w) - 3.125 above (to w = 16: float's x closest to 1 has
 * w = 15.9), in float: Chebyshev fits of degree 10 and 9 (tools/vmath_fit.py erfinvf_central, erfinvf_tail;
 * 2^-26 relative with their float coefficients, the central constant in two parts). 1 - x^2 as
 * (1 - x)(1 + x), each rounding 2^-24 relative at most, moves w by that much absolute: p's slope is small
 * (0.12 of p at most), and in the tail p ~ sqrt(w) (tests/test_vmath_erf.py sweeps it). */
LM_VM float lm_erfinvf_at(float x, bool central_only) {
    float a = fabsf(x);
    float ac = a < 1.0f ? a : 0.0f;
    float w = -lm_logf((1.0f - ac) * (1.0f + ac));
    float u = w - 2.5f, v = sqrtf(central_only ? 9.0f : w) - 3.125f;
    float pc = 0x1.805c5cp+0f + (0x1.f9dbdep-25f + u * (0x1.f91e8cp-3f + u * (-0x1.11c3ccp-8f + u * (
               -0x1.486688p-10f + u * (0x1.c9b83ap-13f + u * (-0x1.4cd6dcp-18f + u * (-0x1.cb7b9ep-19f + u * (
               0x1.f3bcf6p-22f + u * (0x1.129bb8p-26f + u * (-0x1.2c4526p-27f + u * 0x1.00d79ap-31f))))))))));
    float pt = 0x1.7aaa3cp+1f + v * (0x1.00f3b6p+0f + v * (0x1.cdf90ap-8f + v * (-0x1.5b692p-8f + v * (
               0x1.ef9684p-9f + v * (-0x1.4a6a4ep-9f + v * (0x1.57e938p-10f + v * (-0x1.52fac4p-12f + v * (
               -0x1.6e03ecp-13f + v * 0x1.0f0a24p-13f))))))));
    float r = copysignf(ac * (central_only || w < 5.0f ? pc : pt), x);
    r = a == 1.0f ? copysignf(INFINITY, x) : r;
    r = a > 1.0f ? NAN : r;
    return x != x ? x : r;
}
LM_VM float lm_erfinvf(float x) { return lm_erfinvf_at(x, false); }
/* the short form, as the double one's: the same bits where |x| < 0.9966 (w < 5) */
LM_VM float lm_erfinvf_short(float x) { return lm_erfinvf_at(x, true); }
LM_VM bool lm_erfinvf_short_ok(float x) { return fabsf(x) < 0.9966f; }

/* erfc a for a >= 0 in double, to float's need (2^-28 relative): e^(-a^2) G(r) r, r = 1 / (a + 3), G(r) =
 * (a + 3) erfcx(a) (0.43 to 0.56 on a <= 10.1): a degree-10 polynomial in r - 0.21 (tools/vmath_fit.py
 * erfcf_g, 2^-28 relative), and e^(-a^2) by Taylor to r^8 after the reduction (2^-33). From 10.1 on erfc
 * is below float's smallest subnormal: a stops there. */
LM_VM double lm_erfc_for_float(double a) {
    double ac = a < 10.1 ? a : 10.1;
    double r = 1.0 / (ac + 3.0), v = r - 0.21;
    double g = 0x1.5980e6d2671cap+0 + v * (0x1.e4b6d8c955b07p+2 + v * (0x1.fe015ba7bd7c9p+4 + v * (
               0x1.8681160c6ebc1p+6 + v * (0x1.87da4d757c677p+7 + v * (0x1.3b2bc6345a88ap+7 + v * (
               -0x1.53489172c6915p+8 + v * (-0x1.cd24e12a0acc8p+9 + v * (0x1.e0b577d713717p+8 + v * (
               0x1.9b9a0ff92e0c8p+11 + v * -0x1.ee01ceaf94f33p+7)))))))));
    double z = -ac * ac, k = z * 0x1.71547652b82fep0 + LM_RND_SHIFT, n = k - LM_RND_SHIFT;
    double t = z - n * 0x1.62e42fefa39efp-1;   /* |n| <= 148: n ln 2 rounds by 2^-45 at most */
    double p = 1.0 + t * (1.0 + t * (0.5 + t * (1.0 / 6 + t * (1.0 / 24 + t * (1.0 / 120 + t * (1.0 / 720 +
               t * (1.0 / 5040 + t * (1.0 / 40320))))))));
    return p * lm_from_bits64((lm_bits64(k) - lm_bits64(LM_RND_SHIFT) + 1023) << 52) * (g * r);
}

/* erfc x for float: x^2 is exact in double for a float x; erfc x = 2 - erfc |x| below 0. Rounds once. */
LM_VM float lm_erfcf(float x) {
    double e = lm_erfc_for_float(fabs((double)x));
    float y = (float)(x < 0 ? 2.0 - e : e);
    return x != x ? x : y;
}

/* the normal CDF for float: erfc(z) / 2 at z = -x / sqrt 2 in double (its rounding, 2^-53 relative, moves
 * e^(-z^2) by z^2 2^-52 at most: 2^-45 at the float range's end, x = -14); 1 - erfc(|z|) / 2 left of 0.
 * Rounds once. */
LM_VM float lm_ndtrf(float x) {
    double z = (double)x * -0x1.6a09e667f3bcdp-1;
    double h = 0.5 * lm_erfc_for_float(fabs(z));
    float y = (float)(z < 0 ? 1.0 - h : h);
    return x != x ? x : y;
}

/* ---- double erf, erfc, erfcx, ndtr and log_ndtr (C side; CUDA keeps its erf and erfc and special_fns.h's
 * forms). erfc a = e^(-a^2) erfcx(a) for a >= 0 with (a + 1.5) erfcx(a) = G(r), a polynomial in
 * r = 1/(a + 1.5) from 0 (where the asymptotic series gives 1/sqrt(pi)) to 1/1.5, and e^(-a^2) from a^2 as
 * an exact pair through lm_exp_mul, so erfc keeps its relative accuracy down to the subnormals; 2 - erfc
 * below 0. erf is x P(x^2) below |x| = 0.6, 1 - erfc above. ndtr's argument -x / sqrt 2 is a pair too
 * (rounded, it would move e^(-x^2/2) by up to x^2 2^-53: 2^-43 at x = -38), its low part added to first
 * order. Coefficients: tools/vmath_fit.py. tests/test_vmath_erf.py sweeps them against mpmath. */
#ifndef __CUDACC__
/* erf_small: degree 9 in v - 0.0 on [0.0, 0.36], relative error 4.09e-18 (2^-57.8) */
static const double lm_erf_small[10] = {
    -0x1.2ada3e08e8483p-23, 0x1.b5037458d394cp-20, -0x1.f4910a912973ap-17, 0x1.f9a11462f3b32p-14,
    -0x1.c02da98cc878dp-11, 0x1.565bccee47032p-8, -0x1.b82ce312170d1p-6, 0x1.ce2f21a041f1dp-4,
    -0x1.812746b0379dep-2, 0x1.20dd750429b6dp+0,
};
#define LM_ERF_SMALL_LO0 0x1.0a7937d98c0cap-56
/* erfcx_g: degree 31 in v - 0.34375 on [0.0, 0.6666666666666666], relative error 7.03e-18 (2^-57.0) */
static const double lm_erfcx_g[32] = {
    -0x1.3f97addd67278p+20, -0x1.0fc3cfa2ccb36p+20, 0x1.9abbc6fa1f941p+20, 0x1.79b5d52974132p+19,
    -0x1.d1cd5d8b655b3p+19, -0x1.1ffd48321d21ap+17, 0x1.10cbaa2843d4cp+18, -0x1.5371312b21fefp+14,
    -0x1.05011f84a835dp+15, 0x1.19eaf48db5c0fp+13, -0x1.2183c5542de16p+11, 0x1.833d4ab086a92p+10,
    0x1.37c3262f8d004p+7, -0x1.97c2ccaaa95a0p+9, 0x1.04499192b6bc6p+9, -0x1.b8d1cb9b62c94p+6,
    -0x1.6fe9452abe83dp+6, 0x1.a905918689015p+6, -0x1.682ad594b5809p+5, -0x1.adf2b99c71b87p+2,
    0x1.5f893758dbef0p+4, -0x1.93b36612083a1p+3, -0x1.123c2487f6a0cp-1, 0x1.7443102f7c80ep+2,
    -0x1.b1ee391dfad91p+1, -0x1.b611d835744c5p-1, 0x1.207a4b47f3fc6p+1, -0x1.1400baef582f1p-1,
    -0x1.508e3f1b76aedp+0, 0x1.479f9480fb89cp-1, 0x1.898cea3a2b62bp+0, 0x1.f61e2c1bb8de1p-1,
};
#define LM_ERFCX_G_LO0 -0x1.611e1d1cd484bp-56
#define LM_ERFCX_G_LO1 0x1.cea2cb0f6d3b0p-54
/* erfcx_dlog: degree 4 in v - 0.0 on [0.0, 0.6666666666666666], absolute error 1.47e-03 (2^-9.4) */
static const double lm_erfcx_dlog[5] = {
    0x1.3b6f277b25eaap+2, -0x1.0605f5ecedaf5p+3, 0x1.5f2fac08a5a74p+1, 0x1.63345a79cbbbcp+0,
    0x1.00602b75ce1dcp+0,
};

/* erf_g: degree 14 in v - 0.3125 on [0.13333333333333333, 0.47619047619047616], weighted error 4.53e-18 (2^-57.6) */
static const double lm_erf_g[15] = {
    0x1.24dc3a0f93480p+6, -0x1.3499f4f1b738dp+6, 0x1.331411feba0a0p+4, 0x1.3c2b6f36002d5p+4,
    -0x1.40dc8c2c22149p+4, 0x1.25ccc72627618p+2, 0x1.53435c583ca97p+2, -0x1.33d47bbdd4f2dp+2,
    0x1.64de402c6986ep-5, 0x1.2ad892aa6f616p+1, -0x1.ccaa8188934e7p-1, -0x1.3991a3c7387d8p+0,
    0x1.84c0ca9d8c0b5p-1, 0x1.7e58896286b3fp+0, 0x1.dddc740f3ee2fp-1,
};
#define LM_ERF_G_LO0 -0x1.47971a00aacfep-55
#define LM_ERF_G_LO1 0x1.414ddec679849p-57

#define LM_SQRT1_2_HI 0x1.6a09e667f3bcdp-1
#define LM_SQRT1_2_LO -0x1.bdd3413b26456p-55

/* erfcx(a + al) for a >= 0, +inf included (0), |al| <= 2^-52 a, as a pair yh + *yl: G(r) r with r = 1/(a +
 * 1.5), G's first two coefficients in two parts, so that y = S r + r (the small rest) rounds only in that
 * rest before the sum, and the rounding errors of a + 1.5 and of r (relative e) put back to first order
 * (G is steep enough for G' r e to count); al moves y by al d/da erfcx = -al r y D(r) */
LM_VM double lm_erfcx_pos(double a, double al, double *yl) {
    enum { N = sizeof(lm_erfcx_g) / sizeof(lm_erfcx_g[0]) };
    double s = a + 1.5, sb = s - a, es = (a - (s - sb)) + (1.5 - sb);   /* TwoSum */
    double r = 1.0 / s;
    double e = fma(-r, s, 1.0) - es * r;   /* 1/(a + 1.5) = r (1 + e) */
    e = a < 1e300 ? e : 0.0;
    double u = r - 0.34375, rest, sh = lm_poly_pair(lm_erfcx_g, N, u, LM_ERFCX_G_LO0, LM_ERFCX_G_LO1, &rest);
    double dg = fma(2.0 * lm_erfcx_g[N - 3], u, lm_erfcx_g[N - 2]);   /* G'(r) to 10%: G(r (1 + e)) = G + r e G' */
    double rw = r * fma(fma(r, dg, sh), e, rest);
    double p = sh * r, pl = fma(sh, r, -p);
    double yh = p + rw;
    *yl = (pl + ((p - yh) + rw)) - yh * (al * r) * LM_POLY(lm_erfcx_dlog, r);
    return yh;
}

/* erfc(zh + zl), |zl| <= 2^-52 |zh| (erfc's zl is 0): 2 - erfc |z| below 0, 0 from |z| = 27.3 on
 * (clamped to 28: e^-784 is 0) */
LM_VM double lm_erfc2(double zh, double zl) {
    double a = fabs(zh);
    double ac = a < 28.0 ? a : 28.0;
    double al = a < 28.0 ? (zh < 0 ? -zl : zl) : 0.0;   /* |z| = a + al */
    double hi = ac * ac, lo = fma(ac, ac, -hi) + 2.0 * ac * al;
    double yl, yh = lm_erfcx_pos(ac, al, &yl);
    double e = lm_exp_mul(-hi, -lo, yh, yl);
    double y = zh < 0 ? 2.0 - e : e;
    return zh != zh ? zh : y;
}

LM_VM double lm_erfc(double x) { return lm_erfc2(x, 0.0); }

/* erf: x P(x^2) below 0.6, P's constant in two parts so the product rounds once but for its small terms;
 * 1 - erfc |x| above (1 in double from 5.93), where erfc needs only 2^-56 absolute: erfcx from its own fit on
 * [0.6, 6], weighted by erfc (degree 14 where lm_erfcx_pos needs 31), e^(-x^2) as lm_exp(-hi) (1 - lo) */
LM_VM double lm_erf(double x) {
    enum { N = sizeof(lm_erf_small) / sizeof(lm_erf_small[0]), NG = sizeof(lm_erf_g) / sizeof(lm_erf_g[0]) };
    double a = fabs(x);
    double xs = a < 0.6 ? x : 0.0, z = xs * xs;
    double sm = fma(xs, lm_erf_small[N - 1], xs * fma(lm_poly(lm_erf_small, N - 1, z), z, LM_ERF_SMALL_LO0));
    double ac = a > 0.6 ? (a < 6.0 ? a : 6.0) : 0.6;
    double s = ac + 1.5, sb = s - ac, es = (ac - (s - sb)) + (1.5 - sb);   /* TwoSum */
    double r = 1.0 / s, e = fma(-r, s, 1.0) - es * r;   /* 1/(ac + 1.5) = r (1 + e) */
    double rest, g = lm_poly_pair(lm_erf_g, NG, r - 0.3125, LM_ERF_G_LO0, LM_ERF_G_LO1, &rest);
    double p = r * g, rw = fma(r, g, -p) + r * fma(g, e, rest);
    double hi = ac * ac, lo = fma(ac, ac, -hi);
    double big = copysign(1.0 - lm_exp(-hi) * fma(-p, lo, p + rw), x);   /* e^(-hi - lo) y */
    big = a < 0.6 ? sm : big;
    return x != x ? x : big;
}

/* erfcx x = e^(x^2) erfc x: erfcx_pos from 0 on, 2 e^(x^2) - erfcx |x| below (+inf from -26.6 on), its
 * difference summed without rounding but for the final one */
LM_VM double lm_erfcx(double x) {
    double a = fabs(x);
    double yl, y = lm_erfcx_pos(a, 0.0, &yl);
    double ac = a < 27.0 ? a : 27.0;
    double hi = ac * ac, lo = fma(ac, ac, -hi);
    double el, e = lm_exp_mul2(hi, lo, 2.0, 0.0, &el);
    double d = e - y, db = d - e, ed = (e - (d - db)) + (-y - db);   /* TwoSum */
    double dn = d > DBL_MAX ? d : d + ((ed + el) - yl);
    double r = x < 0 ? dn : y + yl;
    return x != x ? x : r;
}

/* -x / sqrt 2 as a pair */
LM_VM double lm_ndtr_arg(double x, double *zl) {
    double zh = -x * LM_SQRT1_2_HI;
    *zl = fma(-x, LM_SQRT1_2_HI, -zh) - x * LM_SQRT1_2_LO;
    return zh;
}

LM_VM double lm_ndtr(double x) {
    double zl, zh = lm_ndtr_arg(x, &zl);
    return 0.5 * lm_erfc2(zh, zl);
}

/* log ndtr x: log(erfcx(z) / 2) - z^2 below 0 (z = -x / sqrt 2), which stays finite where ndtr underflows;
 * log1p(-ndtr(-x)) above. One lm_log_parts serves both: log(u) + c / u with c the low part of u (erfcx's,
 * or the rounding error of u = 1 - ndtr(-x)). */
LM_VM double lm_log_ndtr(double x) {
    double zl, zh = lm_ndtr_arg(x, &zl);
    double a = fabs(zh), al = zh < 0 ? -zl : zl;   /* |z| = a + al */
    double ac = a < 1e150 ? a : 1e150;
    double yl, y = lm_erfcx_pos(ac, al, &yl);
    double hi = ac * ac, lo = fma(ac, ac, -hi) + 2.0 * ac * al;
    double ql, q = lm_exp_mul2(-hi, -lo, 0.5 * y, 0.5 * yl, &ql);   /* ndtr(-|x|) */
    double u = 1.0 - q, c = ((1.0 - u) - q) - ql;
    u = x < 0 ? 0.5 * y : u;
    c = x < 0 ? 0.5 * yl : c;
    double k, r = lm_log_parts(u > 0 ? u : 1.0, &k);
    double l = k * LM_LN2_HI + ((r + c / u) + k * LM_LN2_LO);
    double lt = a > 1e150 ? -(a * a) : (l - lo) - hi;   /* -inf once x^2 / 2 overflows */
    l = x < 0 ? lt : l;
    return x != x ? x : l;
}
#endif

#endif
