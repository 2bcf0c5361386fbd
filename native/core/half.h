/* The 16-bit floating formats loom stores but never computes in: float16
 * (IEEE binary16) and bfloat16 (float32's upper half). Each is a struct, so
 * arithmetic on one by mistake is a compile error rather than integer math on
 * its bits; kernels load to float, compute, and store back with one rounding
 * (round to nearest, ties to even), which is PyTorch's opmath. The conversions
 * compile for the host and for CUDA devices, and vectorise on the host (gcc 12 does
 * not vectorise its own _Float16 conversions). */
#ifndef LOOM_HALF_H
#define LOOM_HALF_H
#include <stdint.h>
#include <string.h>

#include "hd.h"

typedef struct { uint16_t bits; } lm_float16;
typedef struct { uint16_t bits; } lm_bfloat16;

static inline LM_HD uint32_t lm_f32_bits(float f) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}

static inline LM_HD float lm_bits_f32(uint32_t u) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

/* Branch-free (selects only), so loops over them vectorise; exact for every bit pattern. */
static inline LM_HD float lm_float16_to_float(lm_float16 h) {
#ifdef __CUDA_ARCH__   /* the GPU converts in one instruction */
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
    return f;
#else
    uint32_t sign = (uint32_t)(h.bits & 0x8000) << 16, em = h.bits & 0x7fffu;
    /* exponent and significand moved to float32's places, then scaled by 2^112 to rebias the
     * exponent: exact for normals and subnormals (a subnormal half is a subnormal float here) */
    float v = lm_bits_f32(em << 13) * 0x1p112f;
    uint32_t u = em >= 0x7c00u ? (lm_f32_bits(v) | 0x7f800000u) : lm_f32_bits(v);   /* inf, NaN */
    return lm_bits_f32(u | sign);
#endif
}

static inline LM_HD lm_float16 lm_float_to_float16(float f) {
#ifdef __CUDA_ARCH__
    lm_float16 g;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(g.bits) : "f"(f));
    return g;
#else
    uint32_t x = lm_f32_bits(f), sign = x & 0x80000000u, a = x ^ sign;
    /* below 2^-14 the result is subnormal: adding 0.5 makes the FPU round at 2^-24 (to even) */
    uint32_t sub = lm_f32_bits(lm_bits_f32(a) + 0.5f) - 0x3f000000u;
    /* normal: rebias the exponent, round to nearest even at bit 13 (a carry into inf is right) */
    uint32_t norm = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1)) >> 13;
    /* picked by masks, not ?: (gcc would not if-convert the chain after a kernel's own selects) */
    uint32_t is_big = 0u - (uint32_t)(a >= 0x47800000u), is_sub = 0u - (uint32_t)(a < 0x38800000u);
    uint32_t big = 0x7c00u | ((0u - (uint32_t)(a > 0x7f800000u)) & 0x0200u);   /* 2^16 up: inf; NaN: quiet NaN */
    uint32_t r = (is_big & big) | (~is_big & ((is_sub & sub) | (~is_sub & norm)));
    lm_float16 h;
    h.bits = (uint16_t)(r | (sign >> 16));
    return h;
#endif
}

static inline LM_HD float lm_bfloat16_to_float(lm_bfloat16 h) { return lm_bits_f32((uint32_t)h.bits << 16); }

static inline LM_HD lm_bfloat16 lm_float_to_bfloat16(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    lm_bfloat16 g;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(g.bits) : "f"(f));
    return g;
#else
    uint32_t x = lm_f32_bits(f);
    lm_bfloat16 h;
    if ((x & 0x7fffffffu) > 0x7f800000u) { h.bits = (uint16_t)((x >> 16) | 0x40); return h; }   /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1);   /* round to nearest even; a carry into the exponent is right */
    h.bits = (uint16_t)(x >> 16);
    return h;
#endif
}

#endif
