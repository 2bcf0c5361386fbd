/* Blocks of float16/bfloat16 elements to and from float, for the generated CPU loops'
 * contiguous case: the host's F16C instructions where it has them (16 at a time with AVX-512, else 8), the
 * conversions of half.h elsewhere (which vectorise too). Only the dispatch shards include
 * this: immintrin.h brings declarations (select, ...) hand-written files use as names. */
#ifndef LOOM_HALF_BLOCK_H
#define LOOM_HALF_BLOCK_H
#include "half.h"

#define LM_HALF_BLOCK 32
/* a float loop against one broadcast value: blocks of this many copies of it (not a multiple of 4 KB:
 * the copies' and the output's addresses would alias in the store buffer block after block) */
#define LM_VALUE_BLOCK 3000
/* float loops prefetch strips of this many elements ahead */
#define LM_STRIP 512
/* a strip loop ending at element e of len prefetches the strip after the next: the input's lines and the
 * result's (whose elements may be narrower: bool) */
#define LM_PREFETCH_STRIP(o, x, e, len)                                                                  \
    for (int64_t lm_p_ = (e) + LM_STRIP; lm_p_ < (e) + 2 * LM_STRIP && lm_p_ < (len);                     \
         lm_p_ += 64 / (int64_t)sizeof(*(x))) {                                                          \
        __builtin_prefetch((o) + lm_p_, 1);                                                              \
        __builtin_prefetch((x) + lm_p_);                                                                 \
    }
/* A build not tuned for its host (-Dnative=false) compiles each generated loop three times, for
 * x86-64-v4 (AVX-512), x86-64-v3 (AVX2, FMA) and the baseline; the loader picks one for the CPU it runs
 * on (GCC's target_clones: an ifunc). meson defines LM_CPU_CLONES_ON where the compiler can. */
#if defined(LM_CPU_CLONES_ON) && !defined(__CUDACC__)
#define LM_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LM_CPU_CLONES
#endif
/* A float16/bfloat16 loop converts, computes in float and converts back: compute-bound where
 * float32's is memory-bound, so on a host with AVX-512 it takes the full width, which GCC's
 * -march=native leaves at 256 bits (2.3x on exp's body); other hosts are left as they are. So do the
 * float32/float64 loops of a body that says it is compute-bound (LM_PW_NAME_WIDE: pow's, tanh's, ...). */
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define LM_WIDE_LOOP __attribute__((target("prefer-vector-width=512")))
#else
#define LM_WIDE_LOOP
#endif
#if defined(__AVX512F__) && !defined(__CUDACC__)
#include <immintrin.h>
/* AVX-512's 16-wide forms of F16C's conversions: exp's float16 loop took 0.44 ns an element
 * with the 8-wide ones, 0.35 with these (one thread, tools/bench/dtypes.py's data) */
static inline void lm_load_block_float16(const lm_float16 *x, float *o, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(x + i))));
    for (; i < n; i++) o[i] = lm_float16_to_float(x[i]);
}
static inline void lm_store_block_float16(const float *v, lm_float16 *o, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(o + i), _mm512_cvtps_ph(_mm512_loadu_ps(v + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++) o[i] = lm_float_to_float16(v[i]);
}
#elif defined(__F16C__) && !defined(__CUDACC__)
#include <immintrin.h>
static inline void lm_load_block_float16(const lm_float16 *x, float *o, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i))));
    for (; i < n; i++) o[i] = lm_float16_to_float(x[i]);
}
static inline void lm_store_block_float16(const float *v, lm_float16 *o, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(o + i), _mm256_cvtps_ph(_mm256_loadu_ps(v + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++) o[i] = lm_float_to_float16(v[i]);
}
#else
static inline LM_HD void lm_load_block_float16(const lm_float16 *x, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = lm_float16_to_float(x[i]);
}
static inline LM_HD void lm_store_block_float16(const float *v, lm_float16 *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = lm_float_to_float16(v[i]);
}
#endif
#if defined(__AVX2__) && !defined(__CUDACC__)
#include <immintrin.h>
/* The empty asm hides the widened bits from GCC 12, which otherwise folds a body's signbit into them and
 * fails (an internal compiler error) on the resulting vector code of a whole block */
static inline void lm_load_block_bfloat16(const lm_bfloat16 *x, float *o, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(x + i))), 16));
        __asm__("" : "+x"(v));
        _mm256_storeu_ps(o + i, v);
    }
    for (; i < n; i++) o[i] = lm_bfloat16_to_float(x[i]);
}
/* half.h's rounding (to nearest even, NaN kept quiet) 16 at a time: GCC's vectorisation of the scalar
 * form packed 8 at a time, and bfloat16 abs took 1.5x PyTorch's time */
static inline __m256i lm_bf16_round8_(__m256 f) {
    const __m256i x = _mm256_castps_si256(f), hi = _mm256_srli_epi32(x, 16);
    const __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)),
                                                         _mm256_and_si256(hi, _mm256_set1_epi32(1))), 16);
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(f, f, _CMP_UNORD_Q));
    return _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
}
static inline void lm_store_block_bfloat16(const float *v, lm_bfloat16 *o, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i p = _mm256_packus_epi32(lm_bf16_round8_(_mm256_loadu_ps(v + i)), lm_bf16_round8_(_mm256_loadu_ps(v + i + 8)));
        _mm256_storeu_si256((__m256i *)(o + i), _mm256_permute4x64_epi64(p, 0xd8));
    }
    for (; i < n; i++) o[i] = lm_float_to_bfloat16(v[i]);
}
#else
static inline LM_HD void lm_load_block_bfloat16(const lm_bfloat16 *x, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = lm_bfloat16_to_float(x[i]);
}
static inline LM_HD void lm_store_block_bfloat16(const float *v, lm_bfloat16 *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = lm_float_to_bfloat16(v[i]);
}
#endif

#endif
