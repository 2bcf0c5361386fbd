/* lm_gemm: loom's AVX-512 kernels (float32/64), OpenBLAS's sgemm/dgemm/cgemm/zgemm reading transposed
 * operands in place, else an i-k-j loop; big products split over loom's threads. */
#include "gemm.h"
#include "iter.h"
#include <stdlib.h>
#include "half_block.h"
#include "parallel.h"

/* Products split over threads from ~2e6 multiply-adds: below, the hand-off costs more than it
 * saves (a 64x64x128 product, an MLP layer at batch 64, took 16 us on one thread and 47-51 us
 * on two through OpenBLAS's pool). */
#define LM_GEMM_SERIAL_BELOW ((int64_t)1 << 21)

/* Below this many multiply-adds, packing costs more than loom's AVX-512 kernels save */
#define LM_GEMM_OWN_FROM ((int64_t)1 << 15)

#ifdef LM_HAVE_BLAS
enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };
void scipy_cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                       const float *b, int ldb, float beta, float *c, int ldc);
void scipy_cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                       const double *b, int ldb, double beta, double *c, int ldc);
void scipy_cblas_cgemm(int order, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int lda,
                       const void *b, int ldb, const void *beta, void *c, int ldc);
void scipy_cblas_zgemm(int order, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int lda,
                       const void *b, int ldb, const void *beta, void *c, int ldc);
void scipy_openblas_set_num_threads(int n);
int scipy_openblas_get_num_threads(void);


/* Can gemm read this (rows x cols, strides rs/cs) in place? Size-1 dims have free strides. */
static bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int *trans, int64_t *ld) {
    int64_t r1 = rows > 1 ? rows : 1, c1 = cols > 1 ? cols : 1;
    int64_t rsn = rows == 1 ? c1 : rs, csn = cols == 1 ? 1 : cs;
    if (csn == 1 && rsn >= c1) { *trans = NO_TRANS; *ld = rsn; return true; }
    int64_t rst = rows == 1 ? 1 : rs, cst = cols == 1 ? r1 : cs;
    if (rst == 1 && cst >= r1) { *trans = TRANS; *ld = cst; return true; }
    return false;
}
#endif

/* C = A @ B (or +=) over element type T, the loop for dtypes or layouts BLAS does not take */
#define GEMM_LOOP(T)                                                                                          \
    for (int64_t i = 0; i < M; i++) {                                                                         \
        T *crow = (T *)c + i * ldc;                                                                           \
        if (!accumulate) for (int64_t j = 0; j < N; j++) crow[j] = 0;                                         \
        for (int64_t k = 0; k < K; k++) {                                                                     \
            T av = ((const T *)a.p)[i * a.rs + k * a.cs];                                                     \
            const T *brow = (const T *)b.p + k * b.rs;                                                        \
            if (dtype == LM_BOOL) { if (av) for (int64_t j = 0; j < N; j++) crow[j] = crow[j] || brow[j * b.cs]; } \
            else for (int64_t j = 0; j < N; j++) crow[j] += av * brow[j * b.cs];                              \
        }                                                                                                     \
    }

static void gemm_loop(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c, int64_t ldc,
                      bool accumulate) {
    if (dtype == LM_COMPLEX64) { GEMM_LOOP(lm_complex64) }
    else if (dtype == LM_COMPLEX128) { GEMM_LOOP(lm_complex128) }
    else LM_DISPATCH(dtype, T, , GEMM_LOOP(T))
}

int lm_gemm_serial_begin(void) {
#ifdef LM_HAVE_BLAS
    int n = scipy_openblas_get_num_threads();
    if (n > 1) scipy_openblas_set_num_threads(1);
    return n;
#else
    return 1;
#endif
}

void lm_gemm_serial_end(int token) {
#ifdef LM_HAVE_BLAS
    if (token > 1) scipy_openblas_set_num_threads(token);
#else
    (void)token;
#endif
}

int lm_gemm_threads(int nt, bool release_gil, void (*part)(int t, int n, void *ctx), void *ctx) {
    int token = nt > 1 ? lm_gemm_serial_begin() : 1;   /* a token <= 1 restores nothing */
    int used = lm_parallel_parts(nt, release_gil, part, ctx);
    lm_gemm_serial_end(token);
    return used;
}

int lm_gemm_gang(int nt, bool release_gil, void (*part)(int t, int n, void *ctx), void *ctx) {
    int token = nt > 1 ? lm_gemm_serial_begin() : 1;
    int used = lm_parallel_gang(nt, release_gil, part, ctx);
    lm_gemm_serial_end(token);
    return used;
}

#ifdef LM_HAVE_BLAS
static void blas(int dtype, int ta, int tb, int64_t M, int64_t N, int64_t K, const char *a, int64_t lda, const char *b,
                 int64_t ldb, char *c, int64_t ldc, bool accumulate) {
    static const double one[2] = {1, 0}, zero[2] = {0, 0};
    static const float onef[2] = {1, 0}, zerof[2] = {0, 0};
    if (dtype == LM_COMPLEX64)
        scipy_cblas_cgemm(ROW_MAJOR, ta, tb, (int)M, (int)N, (int)K, onef, a, (int)lda, b, (int)ldb,
                          accumulate ? onef : zerof, c, (int)ldc);
    else if (dtype == LM_COMPLEX128)
        scipy_cblas_zgemm(ROW_MAJOR, ta, tb, (int)M, (int)N, (int)K, one, a, (int)lda, b, (int)ldb,
                          accumulate ? one : zero, c, (int)ldc);
    else if (dtype == LM_FLOAT32)
        scipy_cblas_sgemm(ROW_MAJOR, ta, tb, (int)M, (int)N, (int)K, 1.0f, (const float *)a, (int)lda,
                          (const float *)b, (int)ldb, accumulate ? 1.0f : 0.0f, (float *)c, (int)ldc);
    else
        scipy_cblas_dgemm(ROW_MAJOR, ta, tb, (int)M, (int)N, (int)K, 1.0, (const double *)a, (int)lda,
                          (const double *)b, (int)ldb, accumulate ? 1.0 : 0.0, (double *)c, (int)ldc);
}

#endif

/* One product on the calling thread: loom's AVX-512 kernels (gemm_avx512.c) where the host has
 * them and the product is big enough to repay packing, else OpenBLAS single-threaded where it
 * can read the layout, else the loop. */
static void gemm_one(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c, int64_t ldc,
                     bool accumulate) {
    if (M * N * K >= LM_GEMM_OWN_FROM && lm_gemm_avx512(dtype, M, N, K, a, b, c, ldc, accumulate)) return;
#ifdef LM_HAVE_BLAS
    int ta, tb;
    int64_t lda, ldb;
    if ((dtype == LM_FLOAT32 || dtype == LM_FLOAT64 || lm_is_complex(dtype)) && K > 0 &&
        blas_layout(M, K, a.rs, a.cs, &ta, &lda) && blas_layout(K, N, b.rs, b.cs, &tb, &ldb)) {
        int threads = scipy_openblas_get_num_threads();
        if (threads > 1) scipy_openblas_set_num_threads(1);
        blas(dtype, ta, tb, M, N, K, a.p, lda, b.p, ldb, c, ldc, accumulate);
        if (threads > 1) scipy_openblas_set_num_threads(threads);
        return;
    }
#endif
    gemm_loop(dtype, M, N, K, a, b, c, ldc, accumulate);
}

/* A 16-bit product with no memory of its own to pack into (where the packing's allocation failed):
 * each element converted as it is read, float32 sums in lm_gemm's loop order */
static void half_loop(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, float *c, int64_t ldc,
                      bool accumulate) {
    for (int64_t i = 0; i < M; i++) {
        float *crow = c + i * ldc;
        if (!accumulate) for (int64_t j = 0; j < N; j++) crow[j] = 0;
        for (int64_t k = 0; k < K; k++) {
            float av = lm_half_at(dtype, a.p, i * a.rs + k * a.cs);
            for (int64_t j = 0; j < N; j++) crow[j] += av * lm_half_at(dtype, b.p, k * b.rs + j * b.cs);
        }
    }
}

/* Products from LM_GEMM_SERIAL_BELOW up split their longer side over loom's OpenMP threads, each
 * running a single-threaded product, rather than over OpenBLAS's own pool: its threads spin for
 * a long while after each product, and on two cores they then fight the OpenMP threads of every
 * kernel that follows (at the digits CNN's step they took 40% of the CPU time, mostly spinning). */
typedef struct {
    int dtype, half;   /* half: the operands' 16-bit dtype (C is float32), else -1 */
    int64_t M, N, K, ldc;
    lm_mat a, b;
    char *c;
    bool accumulate;
} split;

static void split_part(int t, int n, void *vs) {
    const split *S = vs;
    int64_t item = (int64_t)lm_itemsize(S->half >= 0 ? S->half : S->dtype), citem = (int64_t)lm_itemsize(S->dtype);
    int64_t len = S->N >= S->M ? S->N : S->M;
    int64_t lo = len * t / n / 32 * 32, hi = t == n - 1 ? len : len * (t + 1) / n / 32 * 32;
    if (hi <= lo) return;
    lm_mat a = S->a, b = S->b;
    int64_t M = S->M, N = S->N;
    char *c = S->c;
    if (S->N >= S->M) {   /* columns lo..hi of B and C */
        b.p += lo * b.cs * item;
        c += lo * citem;
        N = hi - lo;
    } else {              /* rows lo..hi of A and C */
        a.p += lo * a.rs * item;
        c += lo * S->ldc * citem;
        M = hi - lo;
    }
    if (S->half < 0) gemm_one(S->dtype, M, N, S->K, a, b, c, S->ldc, S->accumulate);
    else if (!lm_gemm_avx512_half(S->half, M, N, S->K, a, b, (float *)c, S->ldc, S->accumulate))
        half_loop(S->half, M, N, S->K, a, b, (float *)c, S->ldc, S->accumulate);
}

void lm_gemm(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c, int64_t ldc, bool accumulate) {
    if (M <= 0 || N <= 0) return;
    int nt = lm_get_num_threads();   /* 1 without OpenMP */
    if (lm_parallel_inside()) nt = 1;   /* a kernel's own split (attention, LSTM): stay on this thread */
    if (nt > 1 && M * N * K >= LM_GEMM_SERIAL_BELOW && (N >= M ? N : M) >= 32 * nt &&
        (dtype == LM_FLOAT32 || dtype == LM_FLOAT64 || lm_is_complex(dtype))) {
        split S = {dtype, -1, M, N, K, ldc, a, b, c, accumulate};
        lm_gemm_threads(nt, false, split_part, &S);   /* the callers let the GIL go */
        return;
    }
    gemm_one(dtype, M, N, K, a, b, c, ldc, accumulate);
}

/* rows x cols of a 16-bit matrix as a contiguous float32 copy, or NULL with the error set */
static float *half_copy(int dtype, int64_t rows, int64_t cols, lm_mat m) {
    float *f = malloc((size_t)(rows * cols) * sizeof(float));
    if (!f) {
        lm_set_error(LM_ERR_MEMORY, "out of memory converting a %lld x %lld operand to float32", (long long)rows,
                     (long long)cols);
        return NULL;
    }
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) f[i * cols + j] = lm_half_at(dtype, m.p, i * m.rs + j * m.cs);
    return f;
}

int lm_gemm_half(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, float *c, int64_t ldc,
                 bool accumulate) {
    if (M <= 0 || N <= 0) return 0;
    lm_mat none = {NULL, 0, 0};
    if (K > 0 && M * N * K >= LM_GEMM_OWN_FROM && lm_gemm_avx512_half(dtype, 0, N, K, none, none, c, ldc, false)) {
        int nt = lm_parallel_inside() ? 1 : lm_get_num_threads();
        split S = {LM_FLOAT32, dtype, M, N, K, ldc, a, b, (char *)c, accumulate};
        if (nt > 1 && M * N * K >= LM_GEMM_SERIAL_BELOW && (N >= M ? N : M) >= 32 * nt)
            lm_gemm_threads(nt, false, split_part, &S);
        else
            split_part(0, 1, &S);
        return 0;
    }
    if (K <= 0) {   /* no operand to read: C = 0, or stays */
        lm_gemm(LM_FLOAT32, M, N, 0, none, none, (char *)c, ldc, accumulate);
        return 0;
    }
    /* the float32 copies lm_gemm takes */
    float *af = half_copy(dtype, M, K, a), *bf = af ? half_copy(dtype, K, N, b) : NULL;
    if (bf) lm_gemm(LM_FLOAT32, M, N, K, (lm_mat){(const char *)af, K, 1}, (lm_mat){(const char *)bf, N, 1}, (char *)c,
                    ldc, accumulate);
    free(af);
    free(bf);
    return bf ? 0 : -1;
}

void lm_half_round_into(int dtype, const float *f, char *o, int64_t n) {
    if (dtype == LM_BFLOAT16) lm_store_block_bfloat16(f, (lm_bfloat16 *)o, n);
    else lm_store_block_float16(f, (lm_float16 *)o, n);   /* F16C where the host has it */
}

float *lm_half_scratch(int64_t n) {
    float *f = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    if (!f) lm_set_error(LM_ERR_MEMORY, "out of memory for a float32 result of %lld elements", (long long)n);
    return f;
}
