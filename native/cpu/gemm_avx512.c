/* loom's own float32/float64 GEMM for hosts with AVX-512 (built with -march=native).
 *
 * Why: the OpenBLAS that scipy-openblas32 ships picks its kernels at load time from
 * OPENBLAS_CORETYPE, and machines of this kind set it to Haswell (AVX2), so every
 * product ran at half of what the cores can do, while PyTorch's MKL/oneDNN are not bound by
 * it. This is the classic Goto/BLIS layout: B is packed into KC x NR panels that stay in L1,
 * A into MR x KC panels streamed from L2, and a 12 x (2 vectors) register tile accumulates.
 * Packing reads any strides, so transposed and sliced operands need no copy first.
 * Single-threaded: gemm.c splits large products over loom's threads. */
#include <stdlib.h>
#include <string.h>
#include "gemm.h"
#include "half.h"

#ifdef __AVX512F__
#include <immintrin.h>
#include "transpose16.h"

/* MR: the register tile's rows (12, or 10/8 for small products that 12 would pad); MC rows of A
 * stay in L2 per block, KC deep, NC columns of B per packed block */
enum { MR = 12, KC = 256, MC = 144, NC = 3072 };

/* aligned_alloc wants a multiple of the alignment */
static size_t round64(size_t n) { return (n + 63) / 64 * 64; }

/* Rows per register tile: 12, unless a product of few rows would pad 12-row tiles more than 10- or
 * 8-row ones (20 rows, an LSTM's batch: 2 x 10 instead of 12 + 8 of 12) */
static int tile_rows(int64_t M) {
    if (M >= MC) return MR;
    int best = MR;
    int64_t pad = (M + MR - 1) / MR * MR;
    for (int r = 10; r >= 8; r -= 2)
        if ((M + r - 1) / r * r < pad) best = r, pad = (M + r - 1) / r * r;
    return best;
}

/* 16 elements of a row as floats, per source type */
static inline __m512 load16_float(const float *p) { return _mm512_loadu_ps(p); }
static inline __m512 load16_bfloat16(const lm_bfloat16 *p) {
    __m512i u = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(u, 16));
}
static inline __m512 load16_float16(const lm_float16 *p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
}

/* one float16 element through the host's conversion instruction (every AVX-512 host has F16C), where
 * half.h's portable form costs a dozen integer operations */
static inline float f16_to_float(lm_float16 h) { return _cvtsh_ss(h.bits); }

/* rows (count <= 16, each `ld` apart, 16 consecutive elements each) transposed into 16 rows of
 * `count` floats, `dst_ld` apart: how both packings read operands that run the other way */
#define DEFINE_TRANSPOSE(NAME, S)                                                                               \
    static inline void transpose_block_##NAME(const S *src, int64_t ld, int count, float *dst, int64_t dst_ld) {  \
        __m512 r[16];                                                                                           \
        for (int i = 0; i < 16; i++) r[i] = i < count ? load16_##NAME(src + i * ld) : _mm512_setzero_ps();     \
        transpose16(r);                                                                                         \
        __mmask16 m = (__mmask16)((1u << count) - 1);                                                          \
        for (int k = 0; k < 16; k++) _mm512_mask_storeu_ps(dst + k * dst_ld, m, r[k]);                         \
    }
DEFINE_TRANSPOSE(float, float)
DEFINE_TRANSPOSE(bfloat16, lm_bfloat16)
DEFINE_TRANSPOSE(float16, lm_float16)

/* Fast paths of the packings, per source type: false leaves the work to the element loops. The
 * 16-bit sources are converted to float as they are packed, so their products run float32's kernels
 * with each element converted once (and no float32 copy of either operand). */
#define DEFINE_FAST_PACKS(NAME, S)                                                                              \
    static bool pack_a_rows_##NAME(const S *src, int64_t rs, int64_t kc, int mr, float *dst, int64_t *done) {  \
        int64_t k = 0;                                                                                          \
        for (; k + 16 <= kc; k += 16) transpose_block_##NAME(src + k, rs, mr, dst + k * mr, mr);               \
        *done = k;                                                                                              \
        return true;                                                                                            \
    }                                                                                                           \
    static bool pack_bt_##NAME(const S *src, int64_t cs, int64_t kc, float *dst, int64_t *done) {              \
        int64_t k = 0;                                                                                          \
        for (; k + 16 <= kc; k += 16)                                                                           \
            for (int h = 0; h < 2; h++) transpose_block_##NAME(src + k + h * 16 * cs, cs, 16, dst + k * 32 + h * 16, 32); \
        *done = k;                                                                                              \
        return true;                                                                                            \
    }
/* a packed B row of NR_float (32) elements from a contiguous source row */
static inline void copy_row_float(const float *from, float *to) { memcpy(to, from, 32 * sizeof(float)); }
static inline void copy_row_double(const double *from, double *to) { memcpy(to, from, 16 * sizeof(double)); }
static inline void copy_row_bfloat16(const lm_bfloat16 *from, float *to) {
    _mm512_storeu_ps(to, load16_bfloat16(from));
    _mm512_storeu_ps(to + 16, load16_bfloat16(from + 16));
}
static inline void copy_row_float16(const lm_float16 *from, float *to) {
    _mm512_storeu_ps(to, load16_float16(from));
    _mm512_storeu_ps(to + 16, load16_float16(from + 16));
}
DEFINE_FAST_PACKS(float, float)
DEFINE_FAST_PACKS(bfloat16, lm_bfloat16)
DEFINE_FAST_PACKS(float16, lm_float16)
static bool pack_a_rows_double(const double *src, int64_t rs, int64_t kc, int mr, double *dst, int64_t *done) {
    (void)src, (void)rs, (void)kc, (void)mr, (void)dst, (void)done;
    return false;
}
static bool pack_bt_double(const double *src, int64_t cs, int64_t kc, double *dst, int64_t *done) {
    (void)src, (void)cs, (void)kc, (void)dst, (void)done;
    return false;
}

#define DEFINE_TILE(T, ROWS, V, VL, LOAD, SET1, FMA, ADD, ZERO, MASKLOAD, MASKSTORE, MASKT)                        \
    /* ap: ROWS x kc (k-major), bp: kc x NR; C tile (mr x nr valid) = or += the product */                        \
    static void tile_##T##_##ROWS(int64_t kc, const T *restrict ap, const T *restrict bp, T *restrict c, int64_t ldc,     \
                         bool add, int mr, int nr) {                                                              \
        V acc[ROWS][2];                                                                                             \
        _Pragma("GCC unroll 12") for (int i = 0; i < ROWS; i++) acc[i][0] = acc[i][1] = ZERO();                    \
        if (add) /* C's rows come from memory while the k loop runs */                                            \
            for (int i = 0; i < mr; i++) {                                                                        \
                _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);                                           \
                _mm_prefetch((const char *)(c + i * ldc + VL), _MM_HINT_T0);                                      \
            }                                                                                                     \
        for (int64_t k = 0; k < kc; k++) {                                                                        \
            V b0 = LOAD(bp), b1 = LOAD(bp + VL);                                                                  \
            _Pragma("GCC unroll 12") for (int i = 0; i < ROWS; i++) {                                               \
                V ai = SET1(ap[i]);                                                                               \
                acc[i][0] = FMA(ai, b0, acc[i][0]);                                                               \
                acc[i][1] = FMA(ai, b1, acc[i][1]);                                                               \
            }                                                                                                     \
            ap += ROWS;                                                                                           \
            bp += 2 * VL;                                                                                         \
        }                                                                                                         \
        MASKT m0 = (MASKT)(nr >= VL ? (MASKT)~0 : (MASKT)((1u << nr) - 1));                                       \
        MASKT m1 = (MASKT)(nr >= 2 * VL ? (MASKT)~0 : nr <= VL ? 0 : (MASKT)((1u << (nr - VL)) - 1));             \
        for (int i = 0; i < mr; i++) {                                                                            \
            T *ci = c + i * ldc;                                                                                  \
            V x0 = acc[i][0], x1 = acc[i][1];                                                                     \
            if (add) x0 = ADD(x0, MASKLOAD(m0, ci)), x1 = ADD(x1, MASKLOAD(m1, ci + VL));                         \
            MASKSTORE(ci, m0, x0);                                                                                \
            MASKSTORE(ci + VL, m1, x1);                                                                           \
        }                                                                                                         \
    }

/* The packings of A and B from source type S into panels of T, each element through CVT */
#define DEFINE_PACKS(NAME, S, T, CVT)                                                                            \
    /* A's rows i0..i0+mc, columns p0..p0+kc into panels of mrp rows, zero-padded */                              \
    static void pack_a_##NAME(const S *a, int64_t rs, int64_t cs, int64_t mc, int64_t kc, int mrp, T *restrict dst) { \
        for (int64_t i0 = 0; i0 < mc; i0 += mrp, dst += mrp * kc) {                                               \
            int64_t m = mc - i0 < mrp ? mc - i0 : mrp;                                                            \
            const S *src = a + i0 * rs;                                                                           \
            int64_t k0 = 0;                                                                                       \
            if (cs == 1 && m == mrp) pack_a_rows_##NAME(src, rs, kc, mrp, dst, &k0);                              \
            if (cs == 1 || rs != 1)                                                                               \
                for (int64_t i = 0; i < mrp; i++)                                                                 \
                    if (i < m) for (int64_t k = k0; k < kc; k++) dst[k * mrp + i] = CVT(src[i * rs + k * cs]);    \
                    else for (int64_t k = k0; k < kc; k++) dst[k * mrp + i] = 0;                                  \
            else                                                                                                  \
                for (int64_t k = 0; k < kc; k++)                                                                  \
                    for (int64_t i = 0; i < mrp; i++) dst[k * mrp + i] = i < m ? CVT(src[i + k * cs]) : 0;        \
        }                                                                                                         \
    }                                                                                                             \
                                                                                                                  \
    /* B's rows p0..p0+kc, columns j0..j0+nc into NR-column panels, zero-padded */                                \
    static void pack_b_##NAME(const S *b, int64_t rs, int64_t cs, int64_t kc, int64_t nc, T *restrict dst) {     \
        enum { NR = NR_##T };                                                                                     \
        int64_t full = cs == 1 ? nc / NR * NR : 0;                                                                \
        for (int64_t k = 0; k < kc; k++)   /* rows of B read whole: the prefetchers follow a row */               \
            for (int64_t j0 = 0; j0 < full; j0 += NR) {                                                           \
                const S *restrict from = b + k * rs + j0;                                                         \
                T *restrict to = dst + j0 * kc + k * NR;                                                          \
                copy_row_##NAME(from, to);                                                                        \
            }                                                                                                     \
        dst += full * kc;                                                                                         \
        for (int64_t j0 = full; j0 < nc; j0 += NR, dst += NR * kc) {                                              \
            int64_t n = nc - j0 < NR ? nc - j0 : NR;                                                              \
            const S *src = b + j0 * cs;                                                                           \
            if (cs == 1 || rs != 1)                                                                               \
                for (int64_t k = 0; k < kc; k++)                                                                  \
                    for (int64_t j = 0; j < NR; j++) dst[k * NR + j] = j < n ? CVT(src[k * rs + j * cs]) : 0;     \
            else {                                                                                                \
                int64_t k0 = 0;                                                                                   \
                if (n == NR) pack_bt_##NAME(src, cs, kc, dst, &k0);                                               \
                for (int64_t j = 0; j < NR; j++)                                                                  \
                    if (j < n) for (int64_t k = k0; k < kc; k++) dst[k * NR + j] = CVT(src[k + j * cs]);          \
                    else for (int64_t k = k0; k < kc; k++) dst[k * NR + j] = 0;                                   \
            }                                                                                                     \
        }                                                                                                         \
    }

/* The product of operands of source type S in T's kernels, C of type T */
#define DEFINE_DRIVER(NAME, S, T)                                                                                \
    /* C (M x nc) = or += A (M x kc, strides rs/cs) @ the packed kc x nc block bp, through apack */           \
    static void block_##NAME(int64_t M, int64_t nc, int64_t kc, const S *A, int64_t rs, int64_t cs, const T *bp, \
                             T *c, int64_t ldc, bool add, T *apack) {                                             \
        enum { NR = NR_##T };                                                                                     \
        int mrp = tile_rows(M);                                                                                   \
        for (int64_t i0 = 0; i0 < M; i0 += MC) {                                                                  \
            int64_t mc = M - i0 < MC ? M - i0 : MC;                                                               \
            pack_a_##NAME(A + i0 * rs, rs, cs, mc, kc, mrp, apack);                                               \
            for (int64_t jr = 0; jr < nc; jr += NR)                                                               \
                for (int64_t ir = 0; ir < mc; ir += mrp)                                                          \
                    tile_##T(mrp, kc, apack + ir * kc, bp + jr * kc, c + (i0 + ir) * ldc + jr, ldc, add,          \
                             (int)(mc - ir < mrp ? mc - ir : mrp), (int)(nc - jr < NR ? nc - jr : NR));           \
        }                                                                                                         \
    }                                                                                                             \
                                                                                                                  \
    /* B read through b, or written into the packed blocks by pack(ctx, ...) when it is given */                 \
    static bool gemm_##NAME(int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, lm_pack_b_fn pack, void *ctx,    \
                            T *c, int64_t ldc, bool accumulate) {                                                 \
        enum { NR = NR_##T };                                                                                     \
        int64_t ncap = N < NC ? N : NC, kcap = K < KC ? K : KC;                                                   \
        T *bpack = aligned_alloc(64, round64(sizeof(T) * (size_t)(kcap * ((ncap + NR - 1) / NR) * NR)));          \
        T *apack = apack_##T(M, K);                                                                               \
        if (!bpack || !apack) {                                                                                   \
            free(bpack);                                                                                          \
            free(apack);                                                                                          \
            return false;                                                                                         \
        }                                                                                                         \
        const S *A = (const S *)a.p, *B = (const S *)b.p;                                                         \
        for (int64_t j0 = 0; j0 < N; j0 += NC) {                                                                  \
            int64_t nc = N - j0 < NC ? N - j0 : NC;                                                               \
            for (int64_t p0 = 0; p0 < K; p0 += KC) {                                                              \
                int64_t kc = K - p0 < KC ? K - p0 : KC;                                                           \
                if (pack) pack(ctx, p0, kc, j0, nc, NR, (char *)bpack);                                           \
                else pack_b_##NAME(B + p0 * b.rs + j0 * b.cs, b.rs, b.cs, kc, nc, bpack);                         \
                block_##NAME(M, nc, kc, A + p0 * a.cs, a.rs, a.cs, bpack, c + j0, ldc, accumulate || p0 > 0, apack); \
            }                                                                                                     \
        }                                                                                                         \
        free(bpack);                                                                                              \
        free(apack);                                                                                              \
        return true;                                                                                              \
    }

#define ID(x) (x)
#define DEFINE_GEMM(T, VL)                                                                                       \
    enum { NR_##T = 2 * VL };                                                                                     \
    /* a tile of mrp (12, 10 or 8) rows */                                                                        \
    static void tile_##T(int mrp, int64_t kc, const T *restrict ap, const T *restrict bp, T *restrict c,          \
                         int64_t ldc, bool add, int mr, int nr) {                                                 \
        if (mrp == 12) tile_##T##_12(kc, ap, bp, c, ldc, add, mr, nr);                                            \
        else if (mrp == 10) tile_##T##_10(kc, ap, bp, c, ldc, add, mr, nr);                                       \
        else tile_##T##_8(kc, ap, bp, c, ldc, add, mr, nr);                                                       \
    }                                                                                                             \
                                                                                                                  \
    static T *apack_##T(int64_t M, int64_t K) {                                                                   \
        int64_t mcap = M < MC ? M : MC, kcap = K < KC ? K : KC;                                                   \
        return aligned_alloc(64, round64(sizeof(T) * (size_t)(kcap * (mcap + MR))));   /* any tile_rows */        \
    }                                                                                                             \
    DEFINE_PACKS(T, T, T, ID)                                                                                     \
    DEFINE_DRIVER(T, T, T)                                                                                        \
                                                                                                                  \
    /* all of B (K x N), block after KC block, each ceil(N / NR) panels wide */                                   \
    static T *pack_all_##T(int64_t K, int64_t N, lm_mat b) {                                                      \
        enum { NR = NR_##T };                                                                                     \
        int64_t npad = (N + NR - 1) / NR * NR;                                                                    \
        T *p = aligned_alloc(64, round64(sizeof(T) * (size_t)(K * npad)));                                        \
        if (p)                                                                                                    \
            for (int64_t p0 = 0; p0 < K; p0 += KC)                                                                \
                pack_b_##T((const T *)b.p + p0 * b.rs, b.rs, b.cs, K - p0 < KC ? K - p0 : KC, N, p + p0 * npad);  \
        return p;                                                                                                 \
    }                                                                                                             \
                                                                                                                  \
    static bool gemm_packed_##T(int64_t M, lm_mat a, const lm_packed_b *pb, T *c, int64_t ldc, bool accumulate) { \
        enum { NR = NR_##T };                                                                                     \
        int64_t K = pb->K, N = pb->N, npad = (N + NR - 1) / NR * NR;                                              \
        T *apack = apack_##T(M, K);                                                                               \
        if (!apack) return false;                                                                                 \
        for (int64_t p0 = 0; p0 < K; p0 += KC)                                                                    \
            block_##T(M, N, K - p0 < KC ? K - p0 : KC, (const T *)a.p + p0 * a.cs, a.rs, a.cs,                   \
                      (const T *)pb->packed + p0 * npad, c, ldc, accumulate || p0 > 0, apack);                    \
        free(apack);                                                                                              \
        return true;                                                                                              \
    }

#define Z_PS() _mm512_setzero_ps()
#define Z_PD() _mm512_setzero_pd()
#define ML_PS(m, p) _mm512_maskz_loadu_ps(m, p)
#define ML_PD(m, p) _mm512_maskz_loadu_pd(m, p)
#define TILES(T, V, VL, LOAD, SET1, FMA, ADD, ZERO, MASKLOAD, MASKSTORE, MASKT)                                  \
    DEFINE_TILE(T, 12, V, VL, LOAD, SET1, FMA, ADD, ZERO, MASKLOAD, MASKSTORE, MASKT)                               \
    DEFINE_TILE(T, 10, V, VL, LOAD, SET1, FMA, ADD, ZERO, MASKLOAD, MASKSTORE, MASKT)                               \
    DEFINE_TILE(T, 8, V, VL, LOAD, SET1, FMA, ADD, ZERO, MASKLOAD, MASKSTORE, MASKT)
TILES(float, __m512, 16, _mm512_loadu_ps, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, Z_PS, ML_PS,
      _mm512_mask_storeu_ps, __mmask16)
TILES(double, __m512d, 8, _mm512_loadu_pd, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_add_pd, Z_PD, ML_PD,
      _mm512_mask_storeu_pd, __mmask8)
DEFINE_GEMM(float, 16)
DEFINE_GEMM(double, 8)
DEFINE_PACKS(bfloat16, lm_bfloat16, float, lm_bfloat16_to_float)
DEFINE_DRIVER(bfloat16, lm_bfloat16, float)
DEFINE_PACKS(float16, lm_float16, float, f16_to_float)
DEFINE_DRIVER(float16, lm_float16, float)

bool lm_gemm_avx512_half(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, float *c, int64_t ldc,
                         bool accumulate) {
    if (dtype != LM_FLOAT16 && dtype != LM_BFLOAT16) return false;
    if (M <= 0 || N <= 0) return true;   /* nothing to do, and a probe for the kernels */
    if (K <= 0) return false;
    if (dtype == LM_BFLOAT16)
        return lm_gemm_amx_bf16(M, N, K, a, b, c, ldc, accumulate) ||
               gemm_bfloat16(M, N, K, a, b, NULL, NULL, c, ldc, accumulate);
    return gemm_float16(M, N, K, a, b, NULL, NULL, c, ldc, accumulate);
}

bool lm_gemm_avx512(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c, int64_t ldc,
                    bool accumulate) {
    if (K <= 0) return false;
    if (dtype == LM_FLOAT32) return gemm_float(M, N, K, a, b, NULL, NULL, (float *)c, ldc, accumulate);
    if (dtype == LM_FLOAT64) return gemm_double(M, N, K, a, b, NULL, NULL, (double *)c, ldc, accumulate);
    return false;
}

bool lm_gemm_packing_b(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_pack_b_fn pack, void *ctx, char *c,
                       int64_t ldc, bool accumulate) {
    lm_mat none = {NULL, 0, 0};
    if (dtype != LM_FLOAT32 && dtype != LM_FLOAT64) return false;
    if (M <= 0 || N <= 0) return true;   /* nothing to do, and a probe for the kernels */
    if (K <= 0) return false;
    if (dtype == LM_FLOAT32) return gemm_float(M, N, K, a, none, pack, ctx, (float *)c, ldc, accumulate);
    if (dtype == LM_FLOAT64) return gemm_double(M, N, K, a, none, pack, ctx, (double *)c, ldc, accumulate);
    return false;
}

void lm_gemm_pack_b(int dtype, int64_t K, int64_t N, lm_mat b, lm_packed_b *out) {
    *out = (lm_packed_b){dtype, K, N, b, NULL};
    if (K > 0 && N > 0 && dtype == LM_FLOAT32) out->packed = pack_all_float(K, N, b);
    else if (K > 0 && N > 0 && dtype == LM_FLOAT64) out->packed = pack_all_double(K, N, b);
}

void lm_gemm_packed(int64_t M, lm_mat a, const lm_packed_b *b, char *c, int64_t ldc, bool accumulate) {
    if (M <= 0 || b->N <= 0) return;
    if (b->packed && b->dtype == LM_FLOAT32 && gemm_packed_float(M, a, b, (float *)c, ldc, accumulate)) return;
    if (b->packed && b->dtype == LM_FLOAT64 && gemm_packed_double(M, a, b, (double *)c, ldc, accumulate)) return;
    lm_gemm(b->dtype, M, b->N, b->K, a, b->b, c, ldc, accumulate);
}

bool lm_transpose_float(int64_t rows, int64_t cols, const float *src, int64_t lds, float *dst, int64_t ldd) {
    int64_t full = cols / 16 * 16;
    for (int64_t i0 = 0; i0 < rows; i0 += 16) {
        int count = rows - i0 < 16 ? (int)(rows - i0) : 16;
        for (int64_t j0 = 0; j0 < full; j0 += 16)
            transpose_block_float(src + i0 * lds + j0, lds, count, dst + j0 * ldd + i0, ldd);
        for (int64_t j = full; j < cols; j++)
            for (int i = 0; i < count; i++) dst[j * ldd + i0 + i] = src[(i0 + i) * lds + j];
    }
    return true;
}

bool lm_transpose_rows_float(int count, const float *const *rows, int64_t cols, float *dst, int64_t ldd) {
    __mmask16 m = (__mmask16)((1u << count) - 1);
    int64_t j0 = 0;
    for (; j0 + 16 <= cols; j0 += 16) {
        __m512 r[16];
        for (int i = 0; i < 16; i++) r[i] = i < count ? _mm512_loadu_ps(rows[i] + j0) : _mm512_setzero_ps();
        transpose16(r);
        for (int k = 0; k < 16; k++) _mm512_mask_storeu_ps(dst + (j0 + k) * ldd, m, r[k]);
    }
    for (; j0 < cols; j0++)
        for (int i = 0; i < count; i++) dst[j0 * ldd + i] = rows[i][j0];
    return true;
}

#else
bool lm_gemm_avx512_half(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, float *c, int64_t ldc,
                         bool accumulate) {
    (void)dtype, (void)M, (void)N, (void)K, (void)a, (void)b, (void)c, (void)ldc, (void)accumulate;
    return false;
}

bool lm_transpose_rows_float(int count, const float *const *rows, int64_t cols, float *dst, int64_t ldd) {
    (void)count, (void)rows, (void)cols, (void)dst, (void)ldd;
    return false;
}

bool lm_gemm_packing_b(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_pack_b_fn pack, void *ctx, char *c,
                       int64_t ldc, bool accumulate) {
    (void)dtype, (void)M, (void)N, (void)K, (void)a, (void)pack, (void)ctx, (void)c, (void)ldc, (void)accumulate;
    return false;
}

bool lm_transpose_float(int64_t rows, int64_t cols, const float *src, int64_t lds, float *dst, int64_t ldd) {
    (void)rows, (void)cols, (void)src, (void)lds, (void)dst, (void)ldd;
    return false;
}

bool lm_gemm_avx512(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c, int64_t ldc,
                    bool accumulate) {
    (void)dtype, (void)M, (void)N, (void)K, (void)a, (void)b, (void)c, (void)ldc, (void)accumulate;
    return false;
}

void lm_gemm_pack_b(int dtype, int64_t K, int64_t N, lm_mat b, lm_packed_b *out) {
    *out = (lm_packed_b){dtype, K, N, b, NULL};
}

void lm_gemm_packed(int64_t M, lm_mat a, const lm_packed_b *b, char *c, int64_t ldc, bool accumulate) {
    lm_gemm(b->dtype, M, b->N, b->K, a, b->b, c, ldc, accumulate);
}
#endif

void lm_gemm_packed_free(lm_packed_b *b) {
    free(b->packed);
    b->packed = NULL;
}
