/* erfc and erfinv for float in plain arithmetic, so loops over them vectorise (libm's erfc and
 * special.h's lm_erfinv, with its branches and Newton loops, do not). Both in double, where the
 * error of the fits and of the steps stays far below a float ulp, and the result rounds once.
 * Included by common.h after vmath.h. */
#ifndef LOOM_KERNELS_VMATH_ERF_H
#define LOOM_KERNELS_VMATH_ERF_H

/* Giles' form ("Approximating the erfinv function", 2010): erfinv(x) = x p(w), w = -log(1 - x^2),
 * p a polynomial in w - 2.5 below w = 5 and in sqrt(w) - 3 above (to w = 16.7: float's x closest
 * to 1 has w = 15.9), here least-squares fits of degree 12 in Chebyshev form, converted, against
 * SciPy's erfinv (relative 1.2e-10 and 5.6e-10). In double, where 1 - x^2 = (1 - x)(1 + x) is
 * exact for a float x, so the result rounds once (tests/test_vmath_erf.py sweeps it). */
LM_VM float lm_erfinvf(float x) {
    double a = fabs((double)x);
    double ac = a < 1.0 ? a : 0.0;
    double w = -lm_log((1.0 - ac) * (1.0 + ac));
    double u = w - 2.5, v = sqrt(w) - 3.0;
    double pc = 0x1.805c5cfcfd6f4p+0 + u * (0x1.f91e89950f902p-3 + u * (-0x1.11c3c408932d5p-8 + u * (
               -0x1.4863d0653c104p-10 + u * (0x1.c9b4917b97eb8p-13 + u * (-0x1.4f45408af92f0p-18 + u * (
               -0x1.caa90bceffe66p-19 + u * (0x1.00fab6a9ccebfp-21 + u * (0x1.d82124b96d44ep-27 + u * (
               -0x1.750ecc94eef72p-27 + u * (0x1.c62e2407827afp-31 + u * (0x1.0ef998a27e20ap-33 + u * (
               -0x1.6f48d83059ea7p-36))))))))))));
    double pt = 0x1.6a9efbd620849p+1 + v * (0x1.006dca6dc24e8p+0 + v * (0x1.3582ec3606bd5p-7 + v * (
               -0x1.f4f008dd07674p-8 + v * (0x1.748fd3c0e6207p-8 + v * (-0x1.d295a7200c488p-9 + v * (
               0x1.85a419c4673d3p-10 + v * (-0x1.312e3d398e752p-13 + v * (-0x1.32d8674a19c00p-12 + v * (
               0x1.a6b10687b6ad4p-13 + v * (-0x1.f4a610a43a3e6p-16 + v * (-0x1.a01d680daac4dp-16 + v * (
               0x1.44db1953438cbp-17))))))))))));
    float r = copysignf((float)(ac * (w < 5.0 ? pc : pt)), x);
    r = a == 1.0 ? copysignf(INFINITY, x) : r;
    r = a > 1.0 ? NAN : r;
    return x != x ? x : r;
}

/* erfc |x| = e^(g(t) - x^2), g = log erfcx (smooth, 0 at x = 0, ~ -log(x sqrt(pi)) for large x) as
 * a degree-16 polynomial in u, t = 4 / (4 + |x|) mapped onto [-1, 1]: a least-squares Chebyshev
 * fit against SciPy's erfcx on [0, 10.1] (absolute 1.1e-9: relative in erfc), converted. x^2 is
 * exact in double for a float x. erfc x = 2 - erfc |x| below 0; from 10.1 on erfc is 0 in float. */
LM_VM float lm_erfcf(float x) {
    double a = fabs((double)x), ac = a < 10.1 ? a : 10.1;
    double u = -0x1.cac5b3f5dc83cp+0 + 0x1.6562d9faee41ep+1 * (4.0 / (4.0 + ac));
    double g = -0x1.7543a2d9bdbb9p+0 + u * (0x1.56fbdf43b1791p+0 + u * (0x1.8fb9500103906p-5 + u * (
               0x1.8bfd8cb9de4c3p-4 + u * (-0x1.c3530e4163437p-6 + u * (0x1.427dcf0189d9dp-8 + u * (
               -0x1.bf046c176a347p-8 + u * (0x1.5a8db81385f03p-9 + u * (-0x1.ae34884b29607p-11 + u * (
               0x1.5363fb1b01ea3p-11 + u * (-0x1.21aecf1c31070p-12 + u * (0x1.75f07ad580442p-13 + u * (
               -0x1.363b460a6af72p-13 + u * (-0x1.ee793a331d288p-17 + u * (0x1.2f4cbfafaf7adp-15 + u * (
               0x1.3ca8b0ada7d1bp-15 + u * (-0x1.bd199133926b3p-16))))))))))))))));
    double e = lm_exp(g - ac * ac);
    float r = (float)(x < 0 ? 2.0 - e : e);
    return x != x ? x : r;
}

#endif
