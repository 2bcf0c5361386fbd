/* Helpers shared by kernel bodies. Kernels are expression macros over a
 * compute type T, so one body serves every dtype (and, later, CUDA). */
#ifndef LOOM_KERNELS_COMMON_H
#define LOOM_KERNELS_COMMON_H
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include "dtype.h"   /* generated from dtypes.yaml: LM_LOWEST, LM_HIGHEST, LM_IS_FLOAT per C type */

/* One body serves bool too, where `a * b` and `(b) < 0` are legal but noisy. */
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
#pragma GCC diagnostic ignored "-Wbool-compare"
#pragma GCC diagnostic ignored "-Wbool-operation"

/* float/double math by type; integers go through double */
#define LM_MATH(fn, x) _Generic((x), float: fn##f((float)(x)), default: fn((double)(x)))

/* e^x for float in plain arithmetic, so loops over it vectorise (glibc's expf
 * does not without -ffast-math). Cody-Waite reduction, degree-6 polynomial,
 * 2^n applied in two halves so the subnormal range stays exact: ~1 ulp. */
static inline float lm_expf(float x) {
    float xc = x > 88.7228394f ? 88.7228394f : (x < -103.972084f ? -103.972084f : x);
    float n = __builtin_rintf(xc * 1.44269504089f);
    float r = xc - n * 0.693145751953125f - n * 1.42860682030941723212e-6f;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666672f + r * (0.0416666679f +
              r * (0.00833333377f + r * 0.00138888892f)))));
    int32_t ni = (int32_t)n, n1 = ni >> 1, n2 = ni - n1;
    union { uint32_t u; float f; } s1 = {(uint32_t)(n1 + 127) << 23}, s2 = {(uint32_t)(n2 + 127) << 23};
    float y = p * s1.f * s2.f;
    return x > 88.7228394f ? INFINITY : (x < -103.972084f ? 0.0f : (x != x ? x : y));
}
#define LM_EXP(x) _Generic((x), float: lm_expf((float)(x)), default: exp((double)(x)))

/* integer power by squaring, wrapping on overflow (unsigned arithmetic) */
static inline int64_t lm_ipow(int64_t b, int64_t e) {
    if (e < 0) return b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;
    uint64_t r = 1, ub = (uint64_t)b;
    while (e) { if (e & 1) r *= ub; ub *= ub; e >>= 1; }
    return (int64_t)r;
}

/* Python's modulo: the result takes the divisor's sign. The ops refuse a zero
 * divisor before their loop (lm_check_divisor); the b == 0 guards only keep
 * the C division from trapping should a caller skip that check. */
static inline int64_t lm_imod(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t lm_itrunc_mod(int64_t a, int64_t b) {   /* C's %: the dividend's sign */
    return b == 0 || b == -1 ? 0 : a % b;
}
static inline int64_t lm_ifloordiv(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a);   /* INT64_MIN / -1 would trap */
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/* Python's float //, CPython's algorithm: exact where floor(a / b) rounds
 * wrongly (1.0 // 0.1 is 9). Division by zero gives a / b (inf or nan). */
static inline double lm_floordiv_py(double a, double b) {
    if (b == 0) return a / b;
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
    if (div != 0) {
        double f = floor(div);
        return div - f > 0.5 ? f + 1.0 : f;
    }
    return copysign(0.0, a / b);
}
static inline double lm_fmod_py(double a, double b) {
    double r = fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline float lm_fmod_pyf(float a, float b) {
    float r = fmodf(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
#endif
