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
#endif

/* A tensor's matrices as a job's kernels see them: all in one scratch block, column-major. */
static inline void lm_la_eye(int dt, void *buf, int64_t n) {
    size_t es = dt == LM_FLOAT64 ? 8 : 4;
    memset(buf, 0, es * n * n);
    for (int64_t i = 0; i < n; i++) {
        if (dt == LM_FLOAT64) ((double *)buf)[i * n + i] = 1;
        else ((float *)buf)[i * n + i] = 1;
    }
}

/* Zeroes the strict upper (lower=true) or lower triangle of a column-major n x n matrix. */
static inline void lm_la_zero_triangle(int dt, void *buf, int64_t n, bool keep_lower) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            if (keep_lower ? i < j : i > j) {
                if (dt == LM_FLOAT64) ((double *)buf)[j * n + i] = 0;
                else ((float *)buf)[j * n + i] = 0;
            }
}

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

/* Copies matrix b of a (rows x cols at dims lead, lead+1) into column-major buf (leading dim ld). */
static inline void lm_la_load(const lm_tensor *a, int lead, int64_t b, void *buf, int64_t ld) {
    int64_t rows = a->shape[lead], cols = a->shape[lead + 1], rs = a->strides[lead], cs = a->strides[lead + 1];
    int64_t off = lm_la_offset(a, lead, b);
    if (a->dtype == LM_FLOAT64) {
        const double *p = (const double *)a->storage->data + off;
        double *o = buf;
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) o[j * ld + i] = p[i * rs + j * cs];
    } else {
        const float *p = (const float *)a->storage->data + off;
        float *o = buf;
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) o[j * ld + i] = p[i * rs + j * cs];
    }
}

/* Copies column-major buf (rows x cols, leading dim ld) into matrix b of the contiguous tensor out. */
static inline void lm_la_store(lm_tensor *out, int64_t b, int64_t rows, int64_t cols, const void *buf, int64_t ld) {
    if (out->dtype == LM_FLOAT64) {
        double *p = (double *)lm_bytes(out) + b * rows * cols;
        const double *s = buf;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) p[i * cols + j] = s[j * ld + i];
    } else {
        float *p = (float *)lm_bytes(out) + b * rows * cols;
        const float *s = buf;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) p[i * cols + j] = s[j * ld + i];
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
 * over OpenMP threads, each LAPACK call on one thread; large ones go one at a time with
 * OpenBLAS's threads inside. */
typedef void (*lm_la_fn)(void *ctx, int64_t b);
static inline void lm_la_for(int64_t batch, int64_t n, lm_la_fn fn, void *ctx) {
    void *gil = batch * n * n * n > (1 << 15) ? lm_gil_release() : NULL;
    if (n <= 64 && batch >= 4) {
        int tok = lm_gemm_serial_begin();
#pragma omp parallel for schedule(static)
        for (int64_t b = 0; b < batch; b++) fn(ctx, b);
        lm_gemm_serial_end(tok);
    } else {
        for (int64_t b = 0; b < batch; b++) fn(ctx, b);
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
