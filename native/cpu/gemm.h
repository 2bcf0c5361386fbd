/* The one matrix product every kernel uses (matmul, linear, conv2d). */
#ifndef LM_GEMM_H
#define LM_GEMM_H
#include "loom.h"
#include "half.h"

typedef struct { const char *p; int64_t rs, cs; } lm_mat;   /* strides in elements */

/* C (M x N, row stride ldc, unit column stride) = A @ B, or C += A @ B when accumulate.
 * Float types whose layouts gemm can read go to BLAS; the rest to a plain loop. */
void lm_gemm(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c, int64_t ldc, bool accumulate);

/* lm_gemm's float32/float64 kernels for AVX-512 hosts (gemm_avx512.c), on the calling thread,
 * any operand strides: false (nothing written) where the host or dtype has none */
bool lm_gemm_avx512(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c, int64_t ldc,
                    bool accumulate);

/* C (float32) = or += A @ B where A and B hold float16 or bfloat16 (dtype), computed in float32 as
 * lm_gemm(LM_FLOAT32) computes the products of their float32 copies, to the bit (bfloat16 on AMX
 * tiles aside, lm_gemm_amx_bf16), without making the copies: loom's kernels convert each element as they pack it; elsewhere (a host without AVX-512, a
 * product too small to repay packing) the operands are converted first. 0, or -1 with the error set
 * (the memory for those copies). */
int lm_gemm_half(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, float *c, int64_t ldc,
                 bool accumulate);
static inline bool lm_is_half(int dtype) { return dtype == LM_FLOAT16 || dtype == LM_BFLOAT16; }
/* element i of a float16/bfloat16 array, as float32 */
static inline float lm_half_at(int dtype, const char *p, int64_t i) {
    return dtype == LM_BFLOAT16 ? lm_bfloat16_to_float(((const lm_bfloat16 *)p)[i])
                                : lm_float16_to_float(((const lm_float16 *)p)[i]);
}
/* n float32 results rounded once into float16/bfloat16 memory */
void lm_half_round_into(int dtype, const float *f, char *o, int64_t n);
/* float32 scratch for n results, or NULL with the error set */
float *lm_half_scratch(int64_t n);

/* its kernels (gemm_avx512.c) on the calling thread: false (nothing written) where the host has none;
 * an empty product (M = 0) only asks */
bool lm_gemm_avx512_half(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, float *c, int64_t ldc,
                         bool accumulate);

/* bfloat16 C (float32) = or += A @ B on AMX tiles (gemm_amx.c), on the calling thread: float32 sums
 * of pairs of exact products, subnormals flushed (not the float32 path's bits). False (nothing
 * written) where the host has no AMX, Linux does not grant it, or lm_set_bf16_amx turned it off. */
bool lm_gemm_amx_bf16(int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, float *c, int64_t ldc, bool accumulate);

/* B packed once for many products with the same right operand (an RNN's recurrent weight at
 * every step). Where the host has no kernels of its own, `packed` stays NULL and the products
 * read `b` in place: lm_gemm_packed always works; b's memory must outlive the packing. */
typedef struct { int dtype; int64_t K, N; lm_mat b; void *packed; } lm_packed_b;
void lm_gemm_pack_b(int dtype, int64_t K, int64_t N, lm_mat b, lm_packed_b *out);
/* C (M x N) = or += A (M x K) @ B, on the calling thread when packed */
void lm_gemm_packed(int64_t M, lm_mat a, const lm_packed_b *b, char *c, int64_t ldc, bool accumulate);
void lm_gemm_packed_free(lm_packed_b *b);

/* C (M x N) = or += A @ B on the calling thread, B (K x N) written by the caller straight into the
 * packed blocks: pack(ctx, k0, kc, n0, nc, nr, dst) fills rows k0..k0+kc, columns n0..n0+nc of B as
 * ceil(nc / nr) panels of kc rows of nr elements each, zero past column nc (a conv's columns, built
 * there without a buffer of their own). False (nothing written) where the host has no kernels of its own
 * for dtype: an empty product (M = 0) only asks. */
typedef void (*lm_pack_b_fn)(void *ctx, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr, char *dst);
bool lm_gemm_packing_b(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_pack_b_fn pack, void *ctx, char *c,
                       int64_t ldc, bool accumulate);

/* dst (cols x rows, row stride ldd) = src (rows x cols, row stride lds) transposed, through the
 * packing's 16 x 16 register transposes: false (nothing written) where the host has none */
bool lm_transpose_float(int64_t rows, int64_t cols, const float *src, int64_t lds, float *dst, int64_t ldd);
/* the same for count <= 16 rows anywhere in memory: dst (cols x count) */
bool lm_transpose_rows_float(int count, const float *const *rows, int64_t cols, float *dst, int64_t ldd);

/* The same on CUDA memory (cuBLAS, native/cuda/host_matmul.c), `batch` products whose
 * operands and results lie stride_a/_b/_c elements apart (0: shared). 0, or -1 with the
 * error set. Operand strides must fit cuBLAS (one unit stride per matrix). */
int lm_cuda_gemm(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c, int64_t ldc,
                 bool accumulate, int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c);

/* lm_gemm on the memory of `device`: 0, or -1 with the error set */
static inline int lm_gemm_on(int device, int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c,
                             int64_t ldc, bool accumulate) {
    if (device == LM_CUDA) return lm_cuda_gemm(dtype, M, N, K, a, b, c, ldc, accumulate, 1, 0, 0, 0);
    lm_gemm(dtype, M, N, K, a, b, c, ldc, accumulate);
    return 0;
}

/* Every gemm runs on its calling thread until lm_gemm_serial_end(token): for
 * kernels that split their work over OpenMP threads themselves, as OpenBLAS's
 * own threads would then compete with them for the same cores. */
int lm_gemm_serial_begin(void);
void lm_gemm_serial_end(int token);

/* lm_parallel_parts (parallel.h: nt fixed parts) and lm_parallel_gang (a team of n meeting at
 * barriers) with every thread's GEMMs on itself (serial OpenBLAS while nt > 1); return the parts */
int lm_gemm_threads(int nt, bool release_gil, void (*part)(int t, int n, void *ctx), void *ctx);
int lm_gemm_gang(int nt, bool release_gil, void (*part)(int t, int n, void *ctx), void *ctx);

#endif
