/* Helpers shared by kernel bodies. Kernels are expression macros over a
 * compute type T, so one body serves every dtype and both devices: this file
 * (and special.h) compile as C (gcc, the CPU build) and as CUDA C++ (nvcc).
 *
 * Bodies never pick per type themselves: where float, double and the integers
 * need different code they call a helper named here (LM_MATH, lm_floor_div,
 * ...). In C a helper is a `_Generic` on (T)0, kept inside this file; in C++
 * it is an overload set (float, double, then a template for the integers and
 * bool), so the same body text means the same function on each side. */
#ifndef LOOM_KERNELS_COMMON_H
#define LOOM_KERNELS_COMMON_H
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "hd.h"
#include "dtype.h"   /* generated from dtypes.yaml: LM_LOWEST, LM_HIGHEST, LM_IS_FLOAT, LM_TYPED per dtype */

#if defined(__GNUC__) && !defined(__CUDACC__)
/* One body serves bool too, where `a * b` and `(b) < 0` are legal but noisy. */
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
#pragma GCC diagnostic ignored "-Wbool-compare"
#pragma GCC diagnostic ignored "-Wbool-operation"
#elif defined(__CUDACC__)
#pragma nv_diag_suppress 186   /* the same for uint8: "pointless comparison of unsigned integer with zero" */
#endif

/* ---- the per-type choices, C side: _Generic ---------------------------- */
#ifndef __cplusplus

/* LM_LOWEST, LM_HIGHEST, LM_IS_FLOAT and LM_TYPED/LM_TYPED_FN (per dtype) come from dtype.h */
#define LM_FINITE_MAX(T) _Generic((T)0, float: FLT_MAX, default: DBL_MAX)
/* the largest finite value of the stored type S: float16's and bfloat16's own (their bodies compute in float) */
#define LM_FINITE_MAX_OF(S, T) _Generic((S *)0, lm_float16 *: 65504.0f, lm_bfloat16 *: 0x1.fep127f, default: LM_FINITE_MAX(T))

/* float/double math by type; integers go through double. lm_f_FN / lm_d_FN are <math.h>'s fnf / fn
 * but where vmath.h or vmath_trig.h has a form that vectorises (the table after their includes). */
#define LM_MATH(fn, x) _Generic((x), float: lm_f_##fn((float)(x)), default: lm_d_##fn((double)(x)))
/* the same for two-argument functions (atan2, copysign, hypot), by compute type: lm_f2_FN / lm_d2_FN */
#define LM_MATH2(fn, T, a, b) _Generic((T)0, float: lm_f2_##fn((float)(a), (float)(b)), \
    default: lm_d2_##fn((double)(a), (double)(b)))
#define LM_EXP(x) _Generic((x), float: lm_expf((float)(x)), lm_complex64: cexpf((lm_complex64)(x)), \
    lm_complex128: cexp((lm_complex128)(x)), default: lm_exp((double)(x)))
/* exp's short form and its test (for LM_PW_exp_SHORT, LM_PW_exp_SHORT_OK): e^x without the
 * clamps and selects, the same bits where the test holds */
#define LM_EXP_SHORT(x) _Generic((x), float: lm_expf_short((float)(x)), default: lm_exp_short((double)(x)))
#define LM_EXP_SHORT_OK(x) _Generic((x), float: lm_expf_short_ok((float)(x)), default: lm_exp_short_ok((double)(x)))

/* tanh (complex too: the tanh body serves them) and erf, through the vectorising float forms */
#define LM_TANH(x) _Generic((x), float: lm_tanhf((float)(x)), lm_complex64: ctanhf((lm_complex64)(x)), \
    lm_complex128: ctanh((lm_complex128)(x)), default: lm_tanh((double)(x)))
#define LM_ERF(x) _Generic((x), float: lm_erff((float)(x)), default: lm_erf((double)(x)))
/* erfc and erfinv: vmath_erf.h's and vmath_erfinv.h's forms; erfinv's short form and its test (for a body's
 * LM_PW_NAME_SHORT, LM_PW_NAME_SHORT_OK) */
#define LM_ERFC(x) _Generic((x), float: lm_erfcf((float)(x)), default: lm_erfc((double)(x)))
/* the normal CDF: float's in double to float's need (its double form's pairs cost a float loop 5x) */
#define LM_NDTR(x) _Generic((x), float: lm_ndtrf((float)(x)), default: lm_ndtr((double)(x)))
#define LM_ERFINV(x) _Generic((x), float: lm_erfinvf((float)(x)), default: lm_erfinv((double)(x)))
#define LM_ERFINV_SHORT(x) _Generic((x), float: lm_erfinvf_short((float)(x)), default: lm_erfinv_short((double)(x)))
#define LM_ERFINV_SHORT_OK(x) _Generic((x), float: lm_erfinvf_short_ok((float)(x)), \
    default: lm_erfinv_short_ok((double)(x)))

/* Bodies of ops that serve complex dtypes: the same function of <complex.h> (cexp, clog, ...)
 * for a complex x, of <math.h> for the rest. (Not LM_MATH's job: every branch of a _Generic
 * must compile, and not every function has a complex twin.) */
#define LM_CMATH(fn, x) _Generic((x), lm_complex64: c##fn##f((lm_complex64)(x)), \
    lm_complex128: c##fn((lm_complex128)(x)), float: lm_f_##fn((float)(x)), default: lm_d_##fn((double)(x)))
/* |z|, arg z and z ** w of complex values (a body's LM_PW_NAME_complex); every branch of a
 * _Generic is compiled, so each casts to its own type */
#define LM_CABS(z) _Generic((z), lm_complex64: lm_cabs64((lm_complex64)(z)), default: cabs((lm_complex128)(z)))
#define LM_CARG(z) _Generic((z), lm_complex64: cargf((lm_complex64)(z)), default: carg((lm_complex128)(z)))
#define LM_CPOW(T, a, b) _Generic((T)0, lm_complex64: cpowf((lm_complex64)(a), (lm_complex64)(b)), \
    default: cpow((lm_complex128)(a), (lm_complex128)(b)))
#define LM_CONJ(z) _Generic((z), lm_complex64: conjf((lm_complex64)(z)), default: conj((lm_complex128)(z)))
#define LM_CREAL(z) _Generic((z), lm_complex64: crealf((lm_complex64)(z)), default: creal((lm_complex128)(z)))
#define LM_CIMAG(z) _Generic((z), lm_complex64: cimagf((lm_complex64)(z)), default: cimag((lm_complex128)(z)))
/* the complex T with parts re and im, exactly */
#define LM_CPLX(T, re, im) _Generic((T)0, lm_complex64: LM_CMPLXF(re, im), default: LM_CMPLX(re, im))
/* a * b + c in one rounding: the form complex bodies use where GCC's contraction of a plain a * b + c
 * would differ between loops */
#define LM_FMA(a, b, c) _Generic((a), float: fmaf((float)(a), (float)(b), (float)(c)), \
    default: fma((double)(a), (double)(b), (double)(c)))
/* a * b of complex values: (ac - bd) + (ad + bc)i, each part one fma over one product, so every
 * loop rounds alike (GCC contracts a plain product into FMAs in some loops and not in others) and,
 * as PyTorch's c10::complex, without C99's Annex G recovery of infinities */
#define LM_CMUL(T, a, b) _Generic((T)0, lm_complex64: lm_cmul64((lm_complex64)(a), (lm_complex64)(b)), \
    default: lm_cmul128((lm_complex128)(a), (lm_complex128)(b)))
static inline lm_complex64 lm_cmul64(lm_complex64 a, lm_complex64 b) {
    float ar = crealf(a), ai = cimagf(a), br = crealf(b), bi = cimagf(b);
    return LM_CMPLXF(fmaf(ar, br, -(ai * bi)), fmaf(ar, bi, ai * br));
}
static inline lm_complex128 lm_cmul128(lm_complex128 a, lm_complex128 b) {
    double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
    return LM_CMPLX(fma(ar, br, -(ai * bi)), fma(ar, bi, ai * br));
}

/* Python's // and %, C's fmod and ** : float and double in floating point (** through
 * vmath_pow.h's lm_powf and lm_powd), the integers through int64 (see the helpers below) */
#define lm_floor_div(T, a, b) _Generic((T)0, \
    float: (float)lm_floordiv_py((double)(a), (double)(b)), \
    double: lm_floordiv_py((double)(a), (double)(b)), \
    default: lm_ifloordiv((int64_t)(a), (int64_t)(b)))
#define lm_remainder(T, a, b) _Generic((T)0, \
    float: lm_fmod_pyf((float)(a), (float)(b)), double: lm_fmod_py((double)(a), (double)(b)), \
    default: lm_imod((int64_t)(a), (int64_t)(b)))
#define lm_fmod(T, a, b) _Generic((T)0, \
    float: fmodf((float)(a), (float)(b)), double: fmod((double)(a), (double)(b)), \
    default: lm_itrunc_mod((int64_t)(a), (int64_t)(b)))
/* their short forms and test, for float and double (vmath_fmod.h; a body's LM_PW_NAME_SHORT, which only floating
 * loops take; integers compile the double branch) */
#define lm_fmod_short_ok_(T, a, b) _Generic((T)0, float: lm_fmodf_short_ok((float)(a), (float)(b)), \
    default: lm_fmod_short_ok((double)(a), (double)(b)))
#define lm_fmod_short_(T, a, b) _Generic((T)0, float: lm_fmodf_short((float)(a), (float)(b)), \
    default: lm_fmod_short((double)(a), (double)(b)))
#define lm_remainder_short(T, a, b) _Generic((T)0, float: lm_fmod_pyf_short((float)(a), (float)(b)), \
    default: lm_fmod_py_short((double)(a), (double)(b)))
#define lm_floor_div_short(T, a, b) _Generic((T)0, float: (float)lm_floordiv_py_short((double)(a), (double)(b)), \
    default: lm_floordiv_py_short((double)(a), (double)(b)))
/* floor_divide's float loops compute in double: their test is double's */
#define lm_floor_div_short_ok(T, a, b) lm_fmod_short_ok((double)(a), (double)(b))
#define lm_pow(T, a, b) _Generic((T)0, \
    float: lm_powf((float)(a), (float)(b)), double: lm_powd((double)(a), (double)(b)), \
    default: lm_ipow((int64_t)(a), (int64_t)(b)))

/* bitwise ops: integers bit by bit, bool as the logical op; floats never reach
 * them (the ops serve integral_and_bool) but C type-checks every branch */
#define lm_bitwise_and(T, a, b) _Generic((T)0, bool: (bool)((a) & (b)), float: 0, double: 0, \
    default: (T)((a) & (b)))
#define lm_bitwise_or(T, a, b) _Generic((T)0, bool: (bool)((a) | (b)), float: 0, double: 0, \
    default: (T)((a) | (b)))
#define lm_bitwise_xor(T, a, b) _Generic((T)0, bool: (bool)((a) ^ (b)), float: 0, double: 0, \
    default: (T)((a) ^ (b)))
#define lm_bitwise_not(T, a) _Generic((T)0, bool: !(a), float: (a), double: (a), default: ~(a))

/* special functions computed in double (vmath_bessel.h & co.): for float results their _f32 forms, which
 * skip the compensations that only double needs */
#define LM_SPECIAL(T, fn, x) _Generic((T)0, float: (T)lm_##fn##_f32((double)(x)), default: (T)lm_##fn((double)(x)))
/* zeta(x, q): float's through vmath_gamma.h's vectorising sum where it holds (a body's short form, and the same
 * bits in the full one), special_fns.h's lm_zeta elsewhere and for double (it takes the sum's 2^-44 error) */
#define LM_ZETA(T, x, q) _Generic((T)0, float: (T)(lm_zeta_f32_ok((double)(x), (double)(q)) ? \
    lm_zeta_f32_sum((double)(x), (double)(q)) : lm_zeta((double)(x), (double)(q))), \
    default: (T)lm_zeta((double)(x), (double)(q)))
#define LM_ZETA_SHORT(T, x, q) ((T)lm_zeta_f32_sum((double)(x), (double)(q)))
#define LM_ZETA_SHORT_OK(T, x, q) _Generic((T)0, float: lm_zeta_f32_ok((double)(x), (double)(q)), default: false)
/* igamma and igammac (FN lm_gammainc, lm_gammaincc; UPPER false, true): the same for vmath_gamma.h's fixed-depth
 * series and fraction */
#define LM_IGAMMA(T, FN, UPPER, a, x) _Generic((T)0, float: (T)(lm_igamma_f32_ok((double)(a), (double)(x)) ? \
    lm_igamma_f32_sum((double)(a), (double)(x), UPPER) : FN((double)(a), (double)(x))), \
    default: (T)FN((double)(a), (double)(x)))
#define LM_IGAMMA_SHORT(T, UPPER, a, x) ((T)lm_igamma_f32_sum((double)(a), (double)(x), UPPER))
#define LM_IGAMMA_SHORT_OK(T, a, x) _Generic((T)0, float: lm_igamma_f32_ok((double)(a), (double)(x)), default: false)

/* the same for helpers of floating-only ops */
#define LM_FLOAT_TYPED(T, name) _Generic((T)0, float: name##_f32, default: name##_f64)
#define LM_FLOAT_FN(name, DEF) DEF(float, name##_f32) DEF(double, name##_f64)

#endif   /* !__cplusplus */

#ifndef __cplusplus
/* |z| of a complex64 in double, where x^2 + y^2 cannot overflow: correctly rounded as cabsf's
 * hypot, but in plain arithmetic, so loops over it vectorise (an infinite part wins over NaN) */
static inline float lm_cabs64(lm_complex64 z) {
    double x = crealf(z), y = cimagf(z);
    float r = (float)sqrt(x * x + y * y);
    return isinf(x) || isinf(y) ? INFINITY : r;
}
#endif

/* e^x for float in plain arithmetic, so loops over it vectorise (glibc's expf
 * does not without -ffast-math). Cody-Waite reduction, degree-6 polynomial,
 * 2^n applied in two halves so the subnormal range stays exact: ~1 ulp.
 * lm_expf_short is it where lm_expf_short_ok holds (the same bits: no clamp, no
 * selects, a third less work, so float16/bfloat16 loops, compute-bound, gain that). */
static inline LM_HD float lm_expf_short(float x) {
#ifdef __CUDA_ARCH__
    float n = rintf(x * 1.44269504089f);
#else
    float n = __builtin_rintf(x * 1.44269504089f);
#endif
    float r = x - n * 0.693145751953125f - n * 1.42860682030941723212e-6f;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666672f + r * (0.0416666679f +
              r * (0.00833333377f + r * 0.00138888892f)))));
    int32_t ni = (int32_t)n, n1 = ni >> 1, n2 = ni - n1;
    union { uint32_t u; float f; } s1 = {(uint32_t)(n1 + 127) << 23}, s2 = {(uint32_t)(n2 + 127) << 23};
    return p * s1.f * s2.f;
}
static inline LM_HD bool lm_expf_short_ok(float x) { return (x >= -103.972084f) & (x <= 88.7228394f); }
static inline LM_HD float lm_expf(float x) {
#ifdef __CUDA_ARCH__
    /* The GPU's expf (ex2.approx and a correction, <= 2 ulp) takes a third of the polynomial's
     * instructions: exp on 16-bit data, half the bytes per element, was bound by them. */
    return expf(x);
#else
    float xc = x > 88.7228394f ? 88.7228394f : (x < -103.972084f ? -103.972084f : x);
    float y = lm_expf_short(xc);
    return x > 88.7228394f ? INFINITY : (x < -103.972084f ? 0.0f : (x != x ? x : y));
#endif
}

/* tanh and erf for float in plain arithmetic, like lm_expf, so loops over them vectorise (glibc's
 * tanhf and erff do not). Both sides of each select are computed, as the vectoriser needs; every
 * clamp keeps the unused side finite. Coefficients are least-squares fits pushed towards minimax
 * (Lawson's reweighting) against float64 libm, rounded to float; tests/test_vmath.py sweeps the
 * float32 range: max 1.6 ulp each. */
static inline LM_HD float lm_tanhf(float x) {
    float a = fabsf(x), s = x * x;
    /* below 0.625 the odd series form, so small |x| has no cancellation (and x + x*s*P(s) is x
     * for tiny x); above, 1 - 2/(e^2a + 1) loses at most a bit (tanh >= 0.55 there) */
    float p = x + x * s * (-0x1.555554p-2f + s * (0x1.11106ap-3f + s * (-0x1.b9ef8ep-5f +
              s * (0x1.639794p-6f + s * (-0x1.0c32c4p-7f + s * 0x1.19c128p-9f)))));
    float e = lm_expf(2.0f * (a > 9.0f ? 9.0f : a));   /* tanh(9) is 1 in float */
    float q = 1.0f - 2.0f / (e + 1.0f);
    /* copysign: x + x*s*P(s) gives +0 for -0; NaN reaches q through lm_expf */
    return copysignf(a < 0.625f ? p : (a > 9.0f ? 1.0f : q), x);
}

static inline LM_HD float lm_erff(float x) {
    float a = fabsf(x), s = x * x, s2 = s * s;
    /* below 0.921875, x + x*P(x^2): erf(x)/x - 1 is small, so the leading 2/sqrt(pi) x is not
     * rounded twice. Both polynomials in Estrin's form: Horner's chains of fmas, one after another,
     * bounded the loop by their latency (erf float32 1.9 ns an element, one thread, AVX2) */
    float p = x + x * ((0x1.06eba8p-3f + s * -0x1.81273ap-2f) + s2 * (0x1.ce2cb0p-4f + s * -0x1.b7f9c6p-6f) +
                       s2 * s2 * ((0x1.542b6cp-8f + s * -0x1.a5d160p-11f) + s2 * 0x1.507922p-14f));
    /* above, 1 - e^-u with u(t) fitting -log(erfc(t)), weighted by erfc (the error that reaches
     * erf); erf is 1 in float from 3.92, so t stops at 4, where the fit ends */
    float t = a > 4.0f ? 4.0f : a, t2 = t * t, t4 = t2 * t2;
    float u = ((-0x1.4f312ep-13f + t * 0x1.212264p+0f) + t2 * (0x1.4460b8p-1f + t * 0x1.ba61eep-4f)) +
              t4 * (((-0x1.97c978p-6f + t * 0x1.097e74p-8f) + t2 * (-0x1.9f7844p-12f + t * 0x1.df37e6p-17f)) +
                    t4 * 0x1.16c324p-21f);
    float q = copysignf(1.0f - lm_expf(-u), x);
    return a < 0.921875f ? p : q;   /* NaN reaches q through lm_expf */
}

#include "vmath.h"
#include "vmath_f32.h"
#include "vmath_pow.h"
#include "vmath_hypot.h"
#include "vmath_erf.h"
#include "vmath_erfinv.h"
#include "vmath_fmod.h"
#include "vmath_sinc.h"
#include "vmath_gamma.h"
#include "vmath_trig.h"
#include "vmath_bessel.h"   /* after vmath_trig.h: J0 and J1 take its lm_sincos */

#ifndef __cplusplus
/* LM_MATH's and LM_CMATH's functions (C side): <math.h>'s, but the vectorising forms of vmath.h
 * where there are some */
#define LM_LIBM_FLOAT(fn) LM_VM float lm_f_##fn(float x) { return fn##f(x); }
#define LM_LIBM_DOUBLE(fn) LM_VM double lm_d_##fn(double x) { return fn(x); }
#define LM_LIBM(fn) LM_LIBM_FLOAT(fn) LM_LIBM_DOUBLE(fn)
LM_LIBM(sqrt) LM_LIBM(erf) LM_LIBM(erfc) LM_LIBM_DOUBLE(lgamma) LM_LIBM(fabs) LM_LIBM(floor)
LM_LIBM(ceil) LM_LIBM(trunc) LM_LIBM(rint)
/* the double form (vmath.h, vmath_trig.h) and the float form (vmath_f32.h, vmath_trig.h) */
#define LM_VMATH_FORMS(fn) LM_VM float lm_f_##fn(float x) { return lm_##fn##f(x); } \
    LM_VM double lm_d_##fn(double x) { return lm_##fn(x); }
LM_VMATH_FORMS(exp2) LM_VMATH_FORMS(log2) LM_VMATH_FORMS(log10) LM_VMATH_FORMS(cosh)
LM_VMATH_FORMS(sinh) LM_VMATH_FORMS(atanh) LM_VMATH_FORMS(asinh) LM_VMATH_FORMS(acosh)
LM_VMATH_FORMS(atan) LM_VMATH_FORMS(asin) LM_VMATH_FORMS(acos) LM_VMATH_FORMS(sin) LM_VMATH_FORMS(cos)
LM_VMATH_FORMS(tan)
/* the short forms of sin, cos and tan and their test (vmath_trig.h), for a body's
 * LM_PW_NAME_SHORT and LM_PW_NAME_SHORT_OK */
#define LM_VMATH_SHORT(fn) LM_VM float lm_f_##fn##_short(float x) { return lm_##fn##_shortf(x); } \
    LM_VM double lm_d_##fn##_short(double x) { return lm_##fn##_short(x); }
LM_VMATH_SHORT(sin) LM_VMATH_SHORT(cos) LM_VMATH_SHORT(tan)
LM_VM bool lm_f_trig_short_ok(float x) { return lm_trig_shortf_ok(x); }
LM_VM bool lm_d_trig_short_ok(double x) { return lm_trig_short_ok(x); }
/* LM_MATH2's: <math.h>'s, but atan2 vmath_trig.h's, nextafter vmath_fmod.h's and hypot vmath_hypot.h's */
#define LM_LIBM2(fn) LM_VM float lm_f2_##fn(float a, float b) { return fn##f(a, b); } \
    LM_VM double lm_d2_##fn(double a, double b) { return fn(a, b); }
LM_LIBM2(copysign)
LM_VM float lm_f2_hypot(float a, float b) { return lm_hypotf(a, b); }
LM_VM double lm_d2_hypot(double a, double b) { return lm_hypot(a, b); }
/* lgamma: float's through vmath_gamma.h's double form, whose short form (every x > 0) skips the reflection;
 * double's libm's */
LM_VM float lm_f_lgamma(float x) { return (float)lm_lgamma_f32(x); }
LM_VM float lm_f_lgamma_short(float x) { return (float)lm_lgamma_pos_f32(x); }
LM_VM bool lm_f_lgamma_short_ok(float x) { return x > 0; }
LM_VM double lm_d_lgamma_short(double x) { return lgamma(x); }
LM_VM bool lm_d_lgamma_short_ok(double x) { return x > 0; }
LM_VM float lm_f2_nextafter(float a, float b) { return lm_nextafterf(a, b); }
LM_VM double lm_d2_nextafter(double a, double b) { return lm_nextafter(a, b); }
LM_VM float lm_f2_atan2(float a, float b) { return lm_atan2f(a, b); }
LM_VM double lm_d2_atan2(double a, double b) { return lm_atan2(a, b); }
LM_VM float lm_f_exp(float x) { return lm_expf(x); }
LM_VM double lm_d_exp(double x) { return lm_exp(x); }
LM_VM float lm_f_tanh(float x) { return lm_tanhf(x); }
LM_VM double lm_d_tanh(double x) { return lm_tanh(x); }
LM_VM float lm_f_expm1(float x) { return lm_expm1f(x); }
LM_VM double lm_d_expm1(double x) { return lm_expm1(x); }
LM_VM float lm_f_log1p(float x) { return lm_log1pf(x); }
LM_VM double lm_d_log1p(double x) { return lm_log1p(x); }
LM_VM float lm_f_log(float x) { return lm_logf(x); }
LM_VM double lm_d_log(double x) { return lm_log(x); }
#endif

/* integer power by squaring, wrapping on overflow (unsigned arithmetic) */
static inline LM_HD int64_t lm_ipow(int64_t b, int64_t e) {
    if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;
    uint64_t r = 1, ub = (uint64_t)b;
    while (e) { if (e & 1) r *= ub; ub *= ub; e >>= 1; }
    return (int64_t)r;
}

/* Python's modulo: the result takes the divisor's sign. The ops refuse a zero
 * divisor before their loop (lm_check_divisor); the b == 0 guards only keep
 * the C division from trapping should a caller skip that check. */
static inline LM_HD int64_t lm_imod(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline LM_HD int64_t lm_itrunc_mod(int64_t a, int64_t b) {   /* C's %: the dividend's sign */
    return b == 0 || b == -1 ? 0 : a % b;
}
static inline LM_HD int64_t lm_ifloordiv(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a);   /* INT64_MIN / -1 would trap */
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/* Python's float //, CPython's algorithm: exact where floor(a / b) rounds
 * wrongly (1.0 // 0.1 is 9). Division by zero gives a / b (inf or nan). */
static inline LM_HD double lm_floordiv_py(double a, double b) {
    if (b == 0) return a / b;
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
    if (div != 0) {
        double f = floor(div);
        return div - f > 0.5 ? f + 1.0 : f;
    }
    return copysign(0.0, a / b);
}
static inline LM_HD double lm_fmod_py(double a, double b) {
    double r = fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline LM_HD float lm_fmod_pyf(float a, float b) {
    float r = fmodf(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* ---- the per-type choices, C++ side: overloads and templates ------------ */
#ifdef __cplusplus

static inline LM_HD float lm_finite_max(float) { return FLT_MAX; }
template <class X> static inline LM_HD double lm_finite_max(X) { return DBL_MAX; }
#define LM_FINITE_MAX(T) lm_finite_max((T)0)
static inline LM_HD float lm_finite_max_of(const lm_float16 *, float) { return 65504.0f; }
static inline LM_HD float lm_finite_max_of(const lm_bfloat16 *, float) { return 0x1.fep127f; }
template <class P, class X> static inline LM_HD auto lm_finite_max_of(const P *, X x) -> decltype(lm_finite_max(x)) { return lm_finite_max(x); }
#define LM_FINITE_MAX_OF(S, T) lm_finite_max_of((const S *)0, (T)0)

/* one-argument math: fnf for float, fn for double, the integers through double */
#define LM_MATH_OVERLOADS(fn)                                                              \
    static inline LM_HD float lm_math_##fn(float x) { return fn##f(x); }                  \
    static inline LM_HD double lm_math_##fn(double x) { return fn(x); }                   \
    template <class X> static inline LM_HD double lm_math_##fn(X x) { return fn((double)x); }
LM_MATH_OVERLOADS(acos) LM_MATH_OVERLOADS(acosh) LM_MATH_OVERLOADS(asin) LM_MATH_OVERLOADS(asinh)
LM_MATH_OVERLOADS(atan) LM_MATH_OVERLOADS(atanh) LM_MATH_OVERLOADS(cos) LM_MATH_OVERLOADS(cosh)
LM_MATH_OVERLOADS(sin) LM_MATH_OVERLOADS(sinh) LM_MATH_OVERLOADS(tan) LM_MATH_OVERLOADS(tanh)
LM_MATH_OVERLOADS(exp) LM_MATH_OVERLOADS(exp2) LM_MATH_OVERLOADS(expm1) LM_MATH_OVERLOADS(log)
LM_MATH_OVERLOADS(log2) LM_MATH_OVERLOADS(log10) LM_MATH_OVERLOADS(log1p) LM_MATH_OVERLOADS(sqrt)
LM_MATH_OVERLOADS(erf) LM_MATH_OVERLOADS(erfc) LM_MATH_OVERLOADS(lgamma) LM_MATH_OVERLOADS(fabs)
LM_MATH_OVERLOADS(floor) LM_MATH_OVERLOADS(ceil) LM_MATH_OVERLOADS(trunc) LM_MATH_OVERLOADS(rint)
#define LM_MATH(fn, x) lm_math_##fn(x)

#define LM_MATH2_OVERLOADS(fn)                                                                      \
    static inline LM_HD float lm_math2_##fn(float a, float b) { return fn##f(a, b); }              \
    static inline LM_HD double lm_math2_##fn(double a, double b) { return fn(a, b); }              \
    template <class X> static inline LM_HD double lm_math2_##fn(X a, X b) { return fn((double)a, (double)b); }
LM_MATH2_OVERLOADS(atan2) LM_MATH2_OVERLOADS(copysign) LM_MATH2_OVERLOADS(hypot) LM_MATH2_OVERLOADS(nextafter)
#define LM_MATH2(fn, T, a, b) lm_math2_##fn((T)(a), (T)(b))

static inline LM_HD float lm_exp_(float x) { return lm_expf(x); }
template <class X> static inline LM_HD double lm_exp_(X x) { return exp((double)x); }
#define LM_EXP(x) lm_exp_(x)
static inline LM_HD float lm_tanh_(float x) { return lm_tanhf(x); }
template <class X> static inline LM_HD double lm_tanh_(X x) { return tanh((double)x); }
#define LM_TANH(x) lm_tanh_(x)
static inline LM_HD float lm_erf_(float x) { return lm_erff(x); }
template <class X> static inline LM_HD double lm_erf_(X x) { return erf((double)x); }
#define LM_ERF(x) lm_erf_(x)
#define LM_ERFC(x) erfc((double)(x))
#define LM_NDTR(x) lm_ndtr((double)(x))   /* special_fns.h's */
#define LM_ERFINV(x) lm_erfinv((double)(x))   /* special.h's */

/* the complex twins (libcu++ on the device, <complex> on a C++ host), for LM_CMATH */
#ifdef __CUDACC__
#define LM_CSTD cuda::std
#else
#define LM_CSTD std
#endif
#define LM_CMATH_OVERLOADS(fn)                                                                             \
    static inline LM_HD lm_complex64 lm_math_##fn(lm_complex64 z) { return LM_CSTD::fn(z); }              \
    static inline LM_HD lm_complex128 lm_math_##fn(lm_complex128 z) { return LM_CSTD::fn(z); }
LM_CMATH_OVERLOADS(exp) LM_CMATH_OVERLOADS(log) LM_CMATH_OVERLOADS(sqrt) LM_CMATH_OVERLOADS(sin)
LM_CMATH_OVERLOADS(cos) LM_CMATH_OVERLOADS(tan) LM_CMATH_OVERLOADS(sinh) LM_CMATH_OVERLOADS(cosh)
LM_CMATH_OVERLOADS(tanh) LM_CMATH_OVERLOADS(asin) LM_CMATH_OVERLOADS(acos) LM_CMATH_OVERLOADS(atan)
LM_CMATH_OVERLOADS(asinh) LM_CMATH_OVERLOADS(acosh) LM_CMATH_OVERLOADS(atanh)
static inline LM_HD lm_complex64 lm_exp_(lm_complex64 z) { return LM_CSTD::exp(z); }
static inline LM_HD lm_complex128 lm_exp_(lm_complex128 z) { return LM_CSTD::exp(z); }
static inline LM_HD lm_complex64 lm_tanh_(lm_complex64 z) { return LM_CSTD::tanh(z); }
static inline LM_HD lm_complex128 lm_tanh_(lm_complex128 z) { return LM_CSTD::tanh(z); }
#define LM_CMATH(fn, x) lm_math_##fn(x)
#define LM_CABS(z) LM_CSTD::abs(z)
#define LM_CARG(z) LM_CSTD::arg(z)
#define LM_CPOW(T, a, b) LM_CSTD::pow((T)(a), (T)(b))
#define LM_CONJ(z) LM_CSTD::conj(z)
#define LM_CREAL(z) (z).real()
#define LM_CIMAG(z) (z).imag()
#define LM_CPLX(T, re, im) T(re, im)
#define LM_CMUL(T, a, b) ((T)(a) * (T)(b))
#define LM_FMA(a, b, c) fma(a, b, c)

static inline LM_HD float lm_floor_div_(float a, float b) { return (float)lm_floordiv_py(a, b); }
static inline LM_HD double lm_floor_div_(double a, double b) { return lm_floordiv_py(a, b); }
template <class X> static inline LM_HD int64_t lm_floor_div_(X a, X b) { return lm_ifloordiv((int64_t)a, (int64_t)b); }
#define lm_floor_div(T, a, b) lm_floor_div_((T)(a), (T)(b))

static inline LM_HD float lm_remainder_(float a, float b) { return lm_fmod_pyf(a, b); }
static inline LM_HD double lm_remainder_(double a, double b) { return lm_fmod_py(a, b); }
template <class X> static inline LM_HD int64_t lm_remainder_(X a, X b) { return lm_imod((int64_t)a, (int64_t)b); }
#define lm_remainder(T, a, b) lm_remainder_((T)(a), (T)(b))

static inline LM_HD float lm_fmod_(float a, float b) { return fmodf(a, b); }
static inline LM_HD double lm_fmod_(double a, double b) { return fmod(a, b); }
template <class X> static inline LM_HD int64_t lm_fmod_(X a, X b) { return lm_itrunc_mod((int64_t)a, (int64_t)b); }
#define lm_fmod(T, a, b) lm_fmod_((T)(a), (T)(b))

static inline LM_HD float lm_pow_(float a, float b) { return powf(a, b); }
static inline LM_HD double lm_pow_(double a, double b) { return pow(a, b); }
template <class X> static inline LM_HD int64_t lm_pow_(X a, X b) { return lm_ipow((int64_t)a, (int64_t)b); }
#define lm_pow(T, a, b) lm_pow_((T)(a), (T)(b))

static inline LM_HD bool lm_bitwise_and_(bool a, bool b) { return a & b; }
static inline LM_HD float lm_bitwise_and_(float, float) { return 0; }
static inline LM_HD double lm_bitwise_and_(double, double) { return 0; }
template <class X> static inline LM_HD X lm_bitwise_and_(X a, X b) { return (X)(a & b); }
#define lm_bitwise_and(T, a, b) lm_bitwise_and_((T)(a), (T)(b))
static inline LM_HD bool lm_bitwise_or_(bool a, bool b) { return a | b; }
static inline LM_HD float lm_bitwise_or_(float, float) { return 0; }
static inline LM_HD double lm_bitwise_or_(double, double) { return 0; }
template <class X> static inline LM_HD X lm_bitwise_or_(X a, X b) { return (X)(a | b); }
#define lm_bitwise_or(T, a, b) lm_bitwise_or_((T)(a), (T)(b))
static inline LM_HD bool lm_bitwise_xor_(bool a, bool b) { return a ^ b; }
static inline LM_HD float lm_bitwise_xor_(float, float) { return 0; }
static inline LM_HD double lm_bitwise_xor_(double, double) { return 0; }
template <class X> static inline LM_HD X lm_bitwise_xor_(X a, X b) { return (X)(a ^ b); }
#define lm_bitwise_xor(T, a, b) lm_bitwise_xor_((T)(a), (T)(b))
static inline LM_HD bool lm_bitwise_not_(bool a) { return !a; }
static inline LM_HD float lm_bitwise_not_(float a) { return a; }
static inline LM_HD double lm_bitwise_not_(double a) { return a; }
template <class X> static inline LM_HD X lm_bitwise_not_(X a) { return (X)~a; }
#define lm_bitwise_not(T, a) lm_bitwise_not_((T)(a))

#define LM_SPECIAL(T, fn, x) ((T)lm_##fn((double)(x)))   /* special_fns.h's, in double */
#define LM_ZETA(T, x, q) ((T)lm_zeta((double)(x), (double)(q)))
#define LM_IGAMMA(T, FN, UPPER, a, x) ((T)FN((double)(a), (double)(x)))
#define LM_TYPED(T, name) name<T>
#define LM_TYPED_FN(name, DEF) template <class T> DEF(T, name)
#define LM_FLOAT_TYPED(T, name) name<T>
#define LM_FLOAT_FN(name, DEF) template <class T> DEF(T, name)

#endif   /* __cplusplus */

/* Helpers that need locals (statement expressions in GNU C; functions so nvcc
 * reads them). DEF(T, NAME) defines one function over T; LM_TYPED_FN stamps it
 * per dtype in C (LM_FLOAT_FN: float and double only) and makes it a template
 * in C++; LM_TYPED(T, name) / LM_FLOAT_TYPED(T, name) names the one for T. */
#endif
