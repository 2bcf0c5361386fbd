/* erfinv and ndtri for double in plain arithmetic with selects, so loops over them vectorise (special.h's
 * lm_erfinv and special_fns.h's lm_ndtri, with their Newton steps on libm's erf, do not). Giles' form
 * ("Approximating the erfinv function", 2010), refitted for double: erfinv(x) = x P(w), w = -log(1 - x^2),
 * P a polynomial in w below w = 5 and, above, in s = sqrt(w) on pieces [sqrt 5, 4], [4, 6], [6, 11.5],
 * [11.5, 27.3] whose coefficients are picked by selects: erfinv needs the first two (w <= 36.04 at the
 * double closest to 1), ndtri(p) = sqrt(2) erfinv(2p - 1), with w = -log(4 p (1 - p)) exact for the
 * smallest p, all four. Each P's first two coefficients in two parts (lm_poly_pair), so x P rounds once but
 * for its small terms. Blocks whose every |x| < 0.9966 (w < 5) take the central piece alone (the short
 * forms), as the loops over such blocks do. Coefficients: tools/vmath_fit.py; tests/test_vmath_erf.py
 * measures them against mpmath. C side only; CUDA keeps special.h's and special_fns.h's forms. */
#ifndef LOOM_KERNELS_VMATH_ERFINV_H
#define LOOM_KERNELS_VMATH_ERFINV_H
#ifndef __CUDACC__

/* erfinv_central: degree 22 in v - 2.5 on [0.0, 5.0], relative error 1.84e-18 (2^-58.9) */
static const double lm_erfinv_central[23] = {
    -0x1.456805d898d1fp-64, 0x1.919d95d66a44fp-63, 0x1.6a3fd44887a54p-58, -0x1.eee6b35f994bap-56,
    -0x1.3b05ba9ab6d96p-53, 0x1.1158f64217205p-49, -0x1.9f363c3485a35p-49, -0x1.56d81977413a1p-44,
    0x1.2d890a4ff1c9dp-41, 0x1.009541699022cp-40, -0x1.11953fd528876p-35, 0x1.0704bf9879c70p-33,
    0x1.f2cba3061bd1dp-31, -0x1.752fda310f5c5p-27, 0x1.ccff743241326p-27, 0x1.01037e3783a20p-21,
    -0x1.ca9227cafa878p-19, -0x1.4f47fe72ec7cfp-18, 0x1.c9b437ed2ada5p-13, -0x1.4863cdfb6175ap-10,
    -0x1.11c3c302dfe42p-8, 0x1.f91e8993f0d14p-3, 0x1.805c5cfcedef5p+0,
};
#define LM_ERFINV_CENTRAL_LO0 -0x1.2c78419526c43p-54
#define LM_ERFINV_CENTRAL_LO1 0x1.d30b7ec33d014p-60
/* erfinv_tail1: degree 22 in v - 3.125 on [2.23606797749979, 4.0], relative error 2.82e-18 (2^-58.3) */
static const double lm_erfinv_tail1[23] = {
    -0x1.71c056f38e7f1p-29, 0x1.0b95f4bf9e877p-28, 0x1.fa2bd4edf1218p-27, -0x1.8e2feebfe4e1fp-25,
    0x1.0bf1ee6bd9a72p-25, 0x1.22fef25ca96a4p-23, -0x1.1e7c8b337fef3p-21, 0x1.918c4e7ef4655p-21,
    0x1.dcfa08920b587p-21, -0x1.a4d4db4fe6096p-18, 0x1.7eb54e578639cp-17, 0x1.25235c8a06378p-19,
    -0x1.edb32bd56a9b2p-15, 0x1.1d6ecaa27964cp-13, -0x1.779cec9e47fd8p-14, -0x1.58a0950d40ddap-12,
    0x1.4a7a1f6a063a5p-10, -0x1.4a493b7f6a76bp-9, 0x1.f1579bc07726ep-9, -0x1.5b6833330170fp-8,
    0x1.cde3e114951f4p-8, 0x1.00f3b54ba7ef1p+0, 0x1.7aaa3c1430b73p+1,
};
#define LM_ERFINV_TAIL1_LO0 0x1.14ed0fb6a2bdap-53
#define LM_ERFINV_TAIL1_LO1 -0x1.164d7fe6da152p-55
/* erfinv_tail2: degree 22 in v - 5.0 on [4.0, 6.05], relative error 1.36e-20 (2^-66.0) */
static const double lm_erfinv_tail2[23] = {
    0x1.29c1af99a6c05p-43, -0x1.b6a2abded4098p-43, -0x1.b269f5509e20ep-40, 0x1.e764131e7aff2p-38,
    -0x1.00e5207b9caf3p-36, 0x1.b142735a8e7ccp-37, 0x1.01d34a58540ebp-34, -0x1.9f3383f866857p-32,
    0x1.6d13ba534a438p-30, -0x1.e6145ae2ff0f9p-29, 0x1.0c74089875777p-27, -0x1.05589a7e5218cp-26,
    0x1.f2999e05b04d4p-26, -0x1.22397ba3ad887p-24, 0x1.ebe290ca3a356p-23, -0x1.0a902fc73168bp-20,
    0x1.2fbcfe38d2c9cp-18, -0x1.4a34904b7bcdep-16, 0x1.3ebf4efa3109cp-14, -0x1.c2f36aa14e68ep-13,
    -0x1.22ea5df1c8209p-13, 0x1.02a30d1fba10bp+0, 0x1.3664ddd1ad7fbp+2,
};
#define LM_ERFINV_TAIL2_LO0 -0x1.7c8444a99ba05p-54
#define LM_ERFINV_TAIL2_LO1 0x1.a8b3b83b7669ap-56
/* erfinv_tail3: degree 22 in v - 8.75 on [6.0, 11.5], relative error 3.81e-20 (2^-64.5) */
static const double lm_erfinv_tail3[23] = {
    0x1.1ae55b44ee85fp-73, -0x1.33e1d80f3a463p-70, 0x1.416eeee57bac6p-68, -0x1.90c7d83c6ec7ap-65,
    0x1.22eaaf0a67f34p-61, -0x1.47664f79ebe6dp-58, 0x1.65318b093634ap-55, -0x1.8cc0b2ec82228p-52,
    0x1.b412ba4c04580p-49, -0x1.d7bc209ca58f0p-46, 0x1.f6a5b144df694p-43, -0x1.072483fd1d568p-39,
    0x1.0d96444583227p-36, -0x1.0c7302e2c574cp-33, 0x1.00d655ca82362p-30, -0x1.cdbc5cabd50d3p-28,
    0x1.72526b7a0d898p-25, -0x1.bfad8e6db4dcdp-23, -0x1.c523c0eb83484p-27, 0x1.5b0eaf84a82e9p-16,
    -0x1.bd08994ee4e08p-12, 0x1.01c689ba2f1cap+0, 0x1.143df451188fap+3,
};
#define LM_ERFINV_TAIL3_LO0 -0x1.b067b6ce4d1fbp-54
#define LM_ERFINV_TAIL3_LO1 0x1.40ad7003569b8p-55
/* erfinv_tail4: degree 22 in v - 19.5 on [11.5, 27.3], relative error 2.16e-18 (2^-58.7) */
static const double lm_erfinv_tail4[23] = {
    0x1.9b9729b963b97p-99, -0x1.aa918516596d3p-95, -0x1.227beaa74fcf5p-93, 0x1.194b102273814p-91,
    0x1.3cd184f893bfdp-83, -0x1.3fefb6177df3cp-79, 0x1.dd60ae433cf55p-76, -0x1.0a7280d243fa0p-71,
    0x1.2c94ae0b4221dp-67, -0x1.28186c597461cp-63, 0x1.0adfa453de17bp-59, -0x1.99b5a5760529cp-56,
    0x1.5f2ff236a08eep-53, 0x1.c14cc5380423dp-49, -0x1.b3cb0b7746274p-43, 0x1.d76f45c8bf5b9p-38,
    -0x1.af292466f8544p-33, 0x1.6d4bc6320bcc1p-28, -0x1.29c10b2fcec39p-23, 0x1.dd995aa9322ccp-19,
    -0x1.8070a7ed602f0p-14, 0x1.009fef778868dp+0, 0x1.36d468e0bf1a2p+4,
};
#define LM_ERFINV_TAIL4_LO0 -0x1.1a34456b6e2ffp-52
#define LM_ERFINV_TAIL4_LO1 -0x1.bfb335ce1824cp-54

#define LM_SQRT2_HI 0x1.6a09e667f3bcdp+0
#define LM_SQRT2_LO -0x1.bdd3413b26456p-54

/* (mh + ml) P(w) below w = 5 */
LM_VM double lm_erfinv_in_w(double w, double mh, double ml) {
    enum { N = sizeof(lm_erfinv_central) / sizeof(lm_erfinv_central[0]) };
    double rest, sh = lm_poly_pair(lm_erfinv_central, N, w - 2.5, LM_ERFINV_CENTRAL_LO0, LM_ERFINV_CENTRAL_LO1, &rest);
    return fma(mh, sh, fma(mh, rest, ml * sh));
}

/* (mh + ml) P(w) from w = 5 on, over the first `pieces` (2 or 4, a constant) of the tail */
LM_VM double lm_erfinv_in_s(double w, double mh, double ml, int pieces) {
    enum { N = sizeof(lm_erfinv_tail1) / sizeof(lm_erfinv_tail1[0]) };
    double s = sqrt(w > 5.0 ? w : 5.0);
    bool p1 = s < 4.0, p2 = s < 6.0, p3 = s < 11.5;
    double c[N], lo0, lo1, mid;
#pragma GCC unroll 32
    for (int k = 0; k < N; k++) {
        double t = pieces > 2 ? (p3 ? lm_erfinv_tail3[k] : lm_erfinv_tail4[k]) : lm_erfinv_tail2[k];
        t = p2 ? lm_erfinv_tail2[k] : t;
        c[k] = p1 ? lm_erfinv_tail1[k] : t;
    }
    lo0 = pieces > 2 ? (p3 ? LM_ERFINV_TAIL3_LO0 : LM_ERFINV_TAIL4_LO0) : LM_ERFINV_TAIL2_LO0;
    lo1 = pieces > 2 ? (p3 ? LM_ERFINV_TAIL3_LO1 : LM_ERFINV_TAIL4_LO1) : LM_ERFINV_TAIL2_LO1;
    mid = pieces > 2 ? (p3 ? 8.75 : 19.5) : 5.0;
    lo0 = p2 ? LM_ERFINV_TAIL2_LO0 : lo0;
    lo1 = p2 ? LM_ERFINV_TAIL2_LO1 : lo1;
    mid = p2 ? 5.0 : mid;
    lo0 = p1 ? LM_ERFINV_TAIL1_LO0 : lo0;
    lo1 = p1 ? LM_ERFINV_TAIL1_LO1 : lo1;
    mid = p1 ? 3.125 : mid;
    double rest, sh = lm_poly_pair(c, N, s - mid, lo0, lo1, &rest);
    return fma(mh, sh, fma(mh, rest, ml * sh));
}

/* w = -log(1 - x^2) for |x| < 1: (1 - a)(1 + a) is exact to a rounding for a >= 1/2, and below, where
 * it is not, P hardly moves with w */
LM_VM double lm_erfinv_w(double a) {
    double ac = a < 1.0 ? a : 0.0;
    return -lm_log((1.0 - ac) * (1.0 + ac));
}

/* +-inf at +-1, NaN outside [-1, 1] */
LM_VM double lm_erfinv_special(double x, double y) {
    double a = fabs(x);
    y = a == 1.0 ? copysign(INFINITY, x) : y;
    y = a > 1.0 ? NAN : y;
    return x != x ? x : y;
}

LM_VM double lm_erfinv(double x) {
    double a = fabs(x), w = lm_erfinv_w(a), ac = a < 1.0 ? a : 0.0;
    double y = w < 5.0 ? lm_erfinv_in_w(w, ac, 0.0) : lm_erfinv_in_s(w, ac, 0.0, 2);
    return lm_erfinv_special(x, copysign(y, x));
}

/* the short form: exact (the same bits) where lm_erfinv_short_ok holds, |x| < 0.9966, so w <= 4.992 */
LM_VM bool lm_erfinv_short_ok(double x) { return fabs(x) < 0.9966; }
LM_VM double lm_erfinv_short(double x) {
    double a = fabs(x), w = lm_erfinv_w(a), ac = a < 1.0 ? a : 0.0;
    return lm_erfinv_special(x, copysign(lm_erfinv_in_w(w, ac, 0.0), x));
}

/* ndtri p = sqrt(2) erfinv(2p - 1): 2p - 1 is exact from p = 1/4 on and off by a relative 2^-53 below,
 * (1 - x)(1 + x) = 4 p (1 - p) keeps its relative accuracy down to p = 5e-324 (w = 742); sqrt(2) |x| as
 * a pair. -inf at 0, +inf at 1, NaN outside [0, 1]. */
LM_VM double lm_ndtri_at(double p, bool central_only) {
    double pc = p > 0 ? p : 0.5;
    pc = pc < 1.0 ? pc : 0.5;
    double x = 2.0 * pc - 1.0, a = fabs(x);
    double w = -lm_log(4.0 * pc * (1.0 - pc));
    double mh = a * LM_SQRT2_HI, ml = fma(a, LM_SQRT2_HI, -mh) + a * LM_SQRT2_LO;
    double y = lm_erfinv_in_w(w, mh, ml);
    y = central_only || w < 5.0 ? y : lm_erfinv_in_s(w, mh, ml, 4);
    y = copysign(y, x);
    y = p == 0 ? -INFINITY : y;
    y = p == 1.0 ? INFINITY : y;
    y = p < 0 ? NAN : y;
    y = p > 1.0 ? NAN : y;
    return p != p ? p : y;
}
LM_VM double lm_ndtri(double p) { return lm_ndtri_at(p, false); }
/* blocks whose every p is in [0.0017, 0.9983] (w <= 4.99) */
LM_VM bool lm_ndtri_short_ok(double p) { return (p >= 0.0017) & (p <= 0.9983); }
LM_VM double lm_ndtri_short(double p) { return lm_ndtri_at(p, true); }

#endif
#endif
