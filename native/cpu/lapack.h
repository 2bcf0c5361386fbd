/* LAPACK from the OpenBLAS loom links (scipy-openblas32: `scipy_` symbol prefix, 32-bit
 * integers, Fortran calling convention with hidden string lengths), and the batch
 * machinery the linalg_*.c kernels share: matrices of any strides are copied into
 * column-major scratch, factored there, and copied back out row-major. */
#ifndef LM_LAPACK_H
#define LM_LAPACK_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "gemm.h"
#include "parallel.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef LM_HAVE_BLAS
typedef size_t lm_flen;   /* gfortran's hidden CHARACTER length */
void scipy_sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void scipy_dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void scipy_sgetrs_(const char *t, const int *n, const int *nrhs, const float *a, const int *lda, const int *ipiv,
                   float *b, const int *ldb, int *info, lm_flen);
void scipy_dgetrs_(const char *t, const int *n, const int *nrhs, const double *a, const int *lda, const int *ipiv,
                   double *b, const int *ldb, int *info, lm_flen);
void scipy_spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, lm_flen);
void scipy_dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, lm_flen);
void scipy_strtrs_(const char *uplo, const char *t, const char *diag, const int *n, const int *nrhs, const float *a,
                   const int *lda, float *b, const int *ldb, int *info, lm_flen, lm_flen, lm_flen);
void scipy_dtrtrs_(const char *uplo, const char *t, const char *diag, const int *n, const int *nrhs, const double *a,
                   const int *lda, double *b, const int *ldb, int *info, lm_flen, lm_flen, lm_flen);
void scipy_sgeqrf_(const int *m, const int *n, float *a, const int *lda, float *tau, float *work, const int *lwork,
                   int *info);
void scipy_dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
                   const int *lwork, int *info);
void scipy_sorgqr_(const int *m, const int *n, const int *k, float *a, const int *lda, const float *tau, float *work,
                   const int *lwork, int *info);
void scipy_dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau,
                   double *work, const int *lwork, int *info);
void scipy_cblas_strsm(int order, int side, int uplo, int ta, int diag, int m, int n, float alpha, const float *a,
                       int lda, float *b, int ldb);
void scipy_cblas_dtrsm(int order, int side, int uplo, int ta, int diag, int m, int n, double alpha, const double *a,
                       int lda, double *b, int ldb);
void scipy_ssyevd_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *w, float *work,
                   const int *lwork, int *iwork, const int *liwork, int *info, lm_flen, lm_flen);
void scipy_dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w,
                   double *work, const int *lwork, int *iwork, const int *liwork, int *info, lm_flen, lm_flen);
void scipy_sgesdd_(const char *jobz, const int *m, const int *n, float *a, const int *lda, float *s, float *u,
                   const int *ldu, float *vt, const int *ldvt, float *work, const int *lwork, int *iwork, int *info,
                   lm_flen);
void scipy_dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s, double *u,
                   const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *iwork,
                   int *info, lm_flen);
void scipy_ssyev_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda, float *w, float *work,
                  const int *lwork, int *info, lm_flen, lm_flen);
void scipy_dsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
                  const int *lwork, int *info, lm_flen, lm_flen);
void scipy_cheev_(const char *jobz, const char *uplo, const int *n, void *a, const int *lda, float *w, void *work,
                  const int *lwork, float *rwork, int *info, lm_flen, lm_flen);
void scipy_zheev_(const char *jobz, const char *uplo, const int *n, void *a, const int *lda, double *w, void *work,
                  const int *lwork, double *rwork, int *info, lm_flen, lm_flen);
/* complex (c: complex64, z: complex128): pointers to interleaved (re, im) pairs */
void scipy_cgetrf_(const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info);
void scipy_zgetrf_(const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info);
void scipy_cgetrs_(const char *t, const int *n, const int *nrhs, const void *a, const int *lda, const int *ipiv,
                   void *b, const int *ldb, int *info, lm_flen);
void scipy_zgetrs_(const char *t, const int *n, const int *nrhs, const void *a, const int *lda, const int *ipiv,
                   void *b, const int *ldb, int *info, lm_flen);
void scipy_cpotrf_(const char *uplo, const int *n, void *a, const int *lda, int *info, lm_flen);
void scipy_zpotrf_(const char *uplo, const int *n, void *a, const int *lda, int *info, lm_flen);
void scipy_cgeqrf_(const int *m, const int *n, void *a, const int *lda, void *tau, void *work, const int *lwork,
                   int *info);
void scipy_zgeqrf_(const int *m, const int *n, void *a, const int *lda, void *tau, void *work, const int *lwork,
                   int *info);
void scipy_cungqr_(const int *m, const int *n, const int *k, void *a, const int *lda, const void *tau, void *work,
                   const int *lwork, int *info);
void scipy_zungqr_(const int *m, const int *n, const int *k, void *a, const int *lda, const void *tau, void *work,
                   const int *lwork, int *info);
void scipy_cblas_ctrsm(int order, int side, int uplo, int ta, int diag, int m, int n, const void *alpha,
                       const void *a, int lda, void *b, int ldb);
void scipy_cblas_ztrsm(int order, int side, int uplo, int ta, int diag, int m, int n, const void *alpha,
                       const void *a, int lda, void *b, int ldb);
void scipy_cheevd_(const char *jobz, const char *uplo, const int *n, void *a, const int *lda, float *w, void *work,
                   const int *lwork, float *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
                   lm_flen, lm_flen);
void scipy_zheevd_(const char *jobz, const char *uplo, const int *n, void *a, const int *lda, double *w, void *work,
                   const int *lwork, double *rwork, const int *lrwork, int *iwork, const int *liwork, int *info,
                   lm_flen, lm_flen);
void scipy_cgesdd_(const char *jobz, const int *m, const int *n, void *a, const int *lda, float *s, void *u,
                   const int *ldu, void *vt, const int *ldvt, void *work, const int *lwork, float *rwork, int *iwork,
                   int *info, lm_flen);
void scipy_zgesdd_(const char *jobz, const int *m, const int *n, void *a, const int *lda, double *s, void *u,
                   const int *ldu, void *vt, const int *ldvt, void *work, const int *lwork, double *rwork, int *iwork,
                   int *info, lm_flen);
#endif

/* A tensor's matrices as a job's kernels see them: all in one scratch block, column-major.
 * Real and complex elements alike: the copies move whole elements (4, 8 or 16 bytes). */
static inline void lm_la_eye(int dt, void *buf, int64_t n) {
    size_t es = lm_itemsize(dt);
    memset(buf, 0, es * n * n);
    for (int64_t i = 0; i < n; i++) {
        char *e = (char *)buf + (i * n + i) * es;
        if (dt == LM_FLOAT64 || dt == LM_COMPLEX128) *(double *)e = 1;
        else *(float *)e = 1;   /* a complex one: its real part */
    }
}

/* The real dtype of a complex one (float32 for complex64), the dtype itself otherwise. */
static inline int lm_la_real(int dt) {
    return dt == LM_COMPLEX64 ? LM_FLOAT32 : dt == LM_COMPLEX128 ? LM_FLOAT64 : dt;
}

/* Zeroes the strict upper (lower=true) or lower triangle of a column-major n x n matrix. */
static inline void lm_la_zero_triangle(int dt, void *buf, int64_t n, bool keep_lower) {
    size_t es = lm_itemsize(dt);
    for (int64_t j = 0; j < n; j++) {
        if (keep_lower) memset((char *)buf + j * n * es, 0, (size_t)(j < n ? j : n) * es);
        else if (j + 1 < n) memset((char *)buf + (j * n + j + 1) * es, 0, (size_t)(n - j - 1) * es);
    }
}

/* Negates the imaginary parts of `count` complex elements (nothing for a real dtype). */
static inline void lm_la_conj(int dt, void *buf, int64_t count) {
    if (dt == LM_COMPLEX128)
        for (int64_t i = 0; i < count; i++) ((double *)buf)[2 * i + 1] = -((double *)buf)[2 * i + 1];
    else if (dt == LM_COMPLEX64)
        for (int64_t i = 0; i < count; i++) ((float *)buf)[2 * i + 1] = -((float *)buf)[2 * i + 1];
}

typedef struct {
    uint64_t lo, hi;
} lm_la_e16;

/* Refuses a build without LAPACK, and matrices LAPACK's 32-bit integers cannot index. */
static inline int lm_la_available(const lm_tensor *a) {
#ifndef LM_HAVE_BLAS
    (void)a;
    return lm_set_error(LM_ERR_NOTIMPL, "loom was built without LAPACK (scipy-openblas32 was not found at build time)");
#else
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] > 0x7fffffff / 2)
            return lm_set_error(LM_ERR_RUNTIME, "matrix dimension %lld is too large for LAPACK's 32-bit indices",
                                (long long)a->shape[i]);
    return 0;
#endif
}

/* A's matrices are its last two dims; the batch is every dim before. */
static inline int64_t lm_la_batch(const lm_tensor *a) {
    int64_t b = 1;
    for (int i = 0; i < a->ndim - 2; i++) b *= a->shape[i];
    return b;
}

/* The offset in elements of batch element `b` of a (row-major order over the leading dims). */
static inline int64_t lm_la_offset(const lm_tensor *a, int lead, int64_t b) {
    int64_t off = a->offset;
    for (int i = lead - 1; i >= 0; i--) {
        off += (b % a->shape[i]) * a->strides[i];
        b /= a->shape[i];
    }
    return off;
}

/* The copies between a tensor's (row-major) matrices and LAPACK's column-major ones transpose:
 * in tiles of LM_LA_TILE x LM_LA_TILE, so that each cache line read (or written) across the
 * rows is used whole while it is cached, not once per column (a 512x512 float64 load took
 * four times as long column by column). */
#define LM_LA_TILE 16
#define LM_LA_LOAD(T)                                                                          \
    do {                                                                                       \
        const T *p = (const T *)a->storage->data + off;                                        \
        T *o = buf;                                                                            \
        if (rows <= LM_LA_TILE && cols <= LM_LA_TILE) {                                        \
            for (int64_t j = 0; j < cols; j++)                                                 \
                for (int64_t i = 0; i < rows; i++) o[j * ld + i] = p[i * rs + j * cs];         \
            break;                                                                             \
        }                                                                                      \
        for (int64_t j0 = 0; j0 < cols; j0 += LM_LA_TILE)                                      \
            for (int64_t i0 = 0; i0 < rows; i0 += LM_LA_TILE) {                                \
                int64_t j1 = j0 + LM_LA_TILE < cols ? j0 + LM_LA_TILE : cols;                  \
                int64_t i1 = i0 + LM_LA_TILE < rows ? i0 + LM_LA_TILE : rows;                  \
                for (int64_t j = j0; j < j1; j++)                                              \
                    for (int64_t i = i0; i < i1; i++) o[j * ld + i] = p[i * rs + j * cs];      \
            }                                                                                  \
    } while (0)

/* Copies matrix b of a (rows x cols at dims lead, lead+1) into column-major buf (leading dim ld). */
static inline void lm_la_load(const lm_tensor *a, int lead, int64_t b, void *buf, int64_t ld) {
    int64_t rows = a->shape[lead], cols = a->shape[lead + 1], rs = a->strides[lead], cs = a->strides[lead + 1];
    int64_t off = lm_la_offset(a, lead, b);
    switch (lm_itemsize(a->dtype)) {
    case 16: LM_LA_LOAD(lm_la_e16); break;
    case 8: LM_LA_LOAD(uint64_t); break;
    default: LM_LA_LOAD(uint32_t); break;
    }
}

#define LM_LA_LOAD_ROWS(T)                                                                     \
    do {                                                                                       \
        const T *p = (const T *)a->storage->data + off;                                        \
        T *o = buf;                                                                            \
        for (int64_t i = 0; i < rows; i++)                                                     \
            for (int64_t j = 0; j < cols; j++) o[i * cols + j] = p[i * rs + j * cs];           \
    } while (0)

/* Copies matrix b of a into row-major buf (rows x cols, contiguous): no transposition. */
static inline void lm_la_load_rows(const lm_tensor *a, int lead, int64_t b, void *buf) {
    int64_t rows = a->shape[lead], cols = a->shape[lead + 1], rs = a->strides[lead], cs = a->strides[lead + 1];
    int64_t off = lm_la_offset(a, lead, b);
    switch (lm_itemsize(a->dtype)) {
    case 16: LM_LA_LOAD_ROWS(lm_la_e16); break;
    case 8: LM_LA_LOAD_ROWS(uint64_t); break;
    default: LM_LA_LOAD_ROWS(uint32_t); break;
    }
}

#define LM_LA_STORE(T)                                                                         \
    do {                                                                                       \
        T *p = (T *)lm_bytes(out) + b * rows * cols;                                           \
        const T *s = buf;                                                                      \
        if (rows <= LM_LA_TILE && cols <= LM_LA_TILE) {                                        \
            for (int64_t i = 0; i < rows; i++)                                                 \
                for (int64_t j = 0; j < cols; j++) p[i * cols + j] = s[j * ld + i];            \
            break;                                                                             \
        }                                                                                      \
        for (int64_t i0 = 0; i0 < rows; i0 += LM_LA_TILE)                                      \
            for (int64_t j0 = 0; j0 < cols; j0 += LM_LA_TILE) {                                \
                int64_t j1 = j0 + LM_LA_TILE < cols ? j0 + LM_LA_TILE : cols;                  \
                int64_t i1 = i0 + LM_LA_TILE < rows ? i0 + LM_LA_TILE : rows;                  \
                for (int64_t i = i0; i < i1; i++)                                              \
                    for (int64_t j = j0; j < j1; j++) p[i * cols + j] = s[j * ld + i];         \
            }                                                                                  \
    } while (0)

/* Copies column-major buf (rows x cols, leading dim ld) into matrix b of the contiguous tensor out. */
static inline void lm_la_store(lm_tensor *out, int64_t b, int64_t rows, int64_t cols, const void *buf, int64_t ld) {
    switch (lm_itemsize(out->dtype)) {
    case 16: LM_LA_STORE(lm_la_e16); break;
    case 8: LM_LA_STORE(uint64_t); break;
    default: LM_LA_STORE(uint32_t); break;
    }
}

#define LM_LA_STORE_UPPER(T)                                                                   \
    do {                                                                                       \
        T *p = (T *)lm_bytes(out) + b * rows * cols, zero;                                     \
        const T *s = buf;                                                                      \
        memset(&zero, 0, sizeof zero);                                                         \
        for (int64_t i0 = 0; i0 < rows; i0 += LM_LA_TILE)                                      \
            for (int64_t j0 = 0; j0 < cols; j0 += LM_LA_TILE) {                                \
                int64_t j1 = j0 + LM_LA_TILE < cols ? j0 + LM_LA_TILE : cols;                  \
                int64_t i1 = i0 + LM_LA_TILE < rows ? i0 + LM_LA_TILE : rows;                  \
                for (int64_t i = i0; i < i1; i++)                                              \
                    for (int64_t j = j0; j < j1; j++)                                          \
                        p[i * cols + j] = i <= j && i < valid ? s[j * ld + i] : zero;          \
            }                                                                                  \
    } while (0)

/* lm_la_store of the upper triangle only (zeros below the diagonal and from row `valid` on): R of
 * a QR factorization, whose column-major buffer keeps the reflectors below. */
static inline void lm_la_store_upper(lm_tensor *out, int64_t b, int64_t rows, int64_t cols, const void *buf, int64_t ld,
                                     int64_t valid) {
    switch (lm_itemsize(out->dtype)) {
    case 16: LM_LA_STORE_UPPER(lm_la_e16); break;
    case 8: LM_LA_STORE_UPPER(uint64_t); break;
    default: LM_LA_STORE_UPPER(uint32_t); break;
    }
}

/* A new contiguous tensor of a's batch dims followed by `extra` trailing dims. */
static inline lm_tensor *lm_la_new(const lm_tensor *a, int dtype, int nextra, const int64_t *extra) {
    int64_t shape[LM_MAX_DIMS];
    int lead = a->ndim - 2;
    memcpy(shape, a->shape, sizeof(int64_t) * lead);
    memcpy(shape + lead, extra, sizeof(int64_t) * nextra);
    return lm_empty(lead + nextra, shape, dtype, a->device);
}

/* Square matrices of floating dtype: PyTorch's checkSquare / checkFloatingOrComplex. */
static inline int lm_la_check_square(const lm_tensor *a, const char *arg) {
    if (a->ndim < 2)
        return lm_set_error(LM_ERR_RUNTIME, "%s must have at least 2 dimensions.", arg);
    if (a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
        return lm_set_error(LM_ERR_RUNTIME, "%s must be batches of square matrices, but they are %lld by %lld matrices",
                            arg, (long long)a->shape[a->ndim - 2], (long long)a->shape[a->ndim - 1]);
    return lm_la_available(a);
}

/* Runs fn(ctx, b) for every batch element with the GIL released. Small matrices are split
 * over loom's OpenMP threads, each LAPACK call on one thread; large ones go one at a time with
 * OpenBLAS's threads inside. The scratch a kernel needs is per thread, not per batch element
 * (lm_la_slots of them, fn takes lm_la_slot()'s): a batch of small matrices then works in a few
 * cache-resident blocks instead of touching fresh pages for every matrix. */
typedef void (*lm_la_fn)(void *ctx, int64_t b);

static inline int lm_la_slots(int64_t batch, int64_t n) {
#ifdef _OPENMP
    if (n <= 64 && batch >= 4) {
        int nt = lm_get_num_threads();
        return nt < batch ? nt : (int)batch;
    }
#else
    (void)batch, (void)n;
#endif
    return 1;
}

/* The scratch slot of the calling thread inside lm_la_for. */
static inline int lm_la_slot(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

typedef struct { int64_t batch; lm_la_fn fn; void *ctx; } lm_la_job;

/* part t of n: a contiguous run of the batch, on thread t (its scratch slot) */
static inline void lm_la_part(int t, int n, void *vj) {
    const lm_la_job *J = vj;
    for (int64_t b = J->batch * t / n; b < J->batch * (t + 1) / n; b++) J->fn(J->ctx, b);
}

/* Through lm_parallel_parts, so the region is timed for the busy-machine backoff. */
static inline void lm_la_for(int64_t batch, int64_t n, lm_la_fn fn, void *ctx) {
    void *gil = batch * n * n * n > (1 << 15) ? lm_gil_release() : NULL;
    int slots = lm_la_slots(batch, n);
    lm_la_job J = {batch, fn, ctx};
    if (slots > 1) {
        int tok = lm_gemm_serial_begin();
        lm_parallel_parts(slots, false, lm_la_part, &J);
        lm_gemm_serial_end(tok);
    } else {
        lm_la_part(0, 1, &J);
    }
    if (gil) lm_gil_reacquire(gil);
}

/* Scratch of `n` bytes that never fails on 0 (NULL + error otherwise). */
static inline void *lm_la_scratch(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) lm_set_error(LM_ERR_MEMORY, "could not allocate %zu bytes of LAPACK workspace", n);
    return p;
}

#endif
