/* erfinv for float in plain arithmetic, so loops over it vectorise (special.h's lm_erfinv, with
 * its branches and Newton loops, does not). Included by common.h after vmath.h. */
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

#endif
