/* Cholesky factorization (LAPACK potrf) and triangular solves (BLAS trsm). A matrix that is
 * not positive-definite (Hermitian positive-definite for complex A) is reported through info, not as an error: linalg.cholesky raises
 * LinAlgError from it on the Python side, cholesky_ex hands it back. */
#include "lapack.h"
#include "linalg_blocked.h"
#include "linalg_small.h"
#include "loom_ops.h"

typedef struct {
    lm_tensor *A, *B, *L, *info;
    char *ws;
    int64_t n, k;
    bool upper, left, unit;
} chol_job;

static void chol_one(void *ctx, int64_t b) {
    chol_job *j = ctx;
    int n = (int)j->n, ld = n > 1 ? n : 1, info = 0;
    char *a = j->ws + lm_la_slot() * j->n * j->n * lm_itemsize(j->A->dtype);
    lm_la_load(j->A, j->A->ndim - 2, b, a, j->n);
    int dt = j->A->dtype;
    if (n <= LM_LA_SMALL && !lm_is_complex(dt))
        info = dt == LM_FLOAT64 ? lm_small_potrf_d(n, (double *)a) : lm_small_potrf_s(n, (float *)a);
    else if (lm_blocked_potrf(dt, n, a, &info)) {}
#ifdef LM_HAVE_BLAS
    else if (dt == LM_FLOAT64) scipy_dpotrf_("L", &n, (double *)a, &ld, &info, 1);
    else if (dt == LM_FLOAT32) scipy_spotrf_("L", &n, (float *)a, &ld, &info, 1);
    else if (dt == LM_COMPLEX128) scipy_zpotrf_("L", &n, a, &ld, &info, 1);
    else scipy_cpotrf_("L", &n, a, &ld, &info, 1);
#else
    (void)ld;
#endif
    ((int32_t *)lm_bytes(j->info))[b] = info;
    lm_la_zero_triangle(dt, a, j->n, true);
    if (j->upper) {   /* U = L^H: store the column-major L, conjugated, as if it were row-major */
        size_t es = lm_itemsize(dt);
        lm_la_conj(dt, a, j->n * j->n);
        memcpy(lm_bytes(j->L) + b * j->n * j->n * es, a, j->n * j->n * es);
    } else {
        lm_la_store(j->L, b, j->n, j->n, a, j->n);
    }
}

/* serves: floating_and_complex */
int lm_cpu__linalg_cholesky_ex(lm_tensor *A, bool upper, lm_tensor **out) {
    if (lm_la_check_square(A, "A")) return -1;
    chol_job j = {.A = A, .n = A->shape[A->ndim - 1], .upper = upper};
    int64_t batch = lm_la_batch(A);
    j.L = lm_la_new(A, A->dtype, 2, (int64_t[]){j.n, j.n});
    j.info = lm_la_new(A, LM_INT32, 0, NULL);
    j.ws = j.L && j.info ? lm_la_scratch(lm_la_slots(batch, j.n) * j.n * j.n * lm_itemsize(A->dtype)) : NULL;
    if (!j.ws) {
        lm_release(j.L), lm_release(j.info);
        return -1;
    }
    lm_la_for(batch, j.n, chol_one, &j);
    free(j.ws);
    out[0] = j.L, out[1] = j.info;
    return 0;
}

static void trsm_one(void *ctx, int64_t b) {
    chol_job *j = ctx;
    size_t es = lm_itemsize(j->A->dtype);
    int64_t rows = j->B->shape[j->B->ndim - 2], cols = j->B->shape[j->B->ndim - 1];
    char *a = j->ws + lm_la_slot() * (j->n * j->n + rows * cols) * es, *x = a + j->n * j->n * es;
    lm_la_load(j->A, j->A->ndim - 2, b, a, j->n);
    lm_la_load(j->B, j->B->ndim - 2, b, x, rows);
#ifdef LM_HAVE_BLAS
    enum { COL_MAJOR = 102, NO_TRANS = 111, UPPER = 121, LOWER = 122, NON_UNIT = 131, UNIT = 132, LEFT = 141, RIGHT = 142 };
    int side = j->left ? LEFT : RIGHT, uplo = j->upper ? UPPER : LOWER, diag = j->unit ? UNIT : NON_UNIT;
    int n = (int)j->n, r = (int)rows, c = (int)cols, ldb = r > 1 ? r : 1, lda = n > 1 ? n : 1;
    static const double one_z[2] = {1, 0};
    static const float one_c[2] = {1, 0};
    if (j->A->dtype == LM_FLOAT64)
        scipy_cblas_dtrsm(COL_MAJOR, side, uplo, NO_TRANS, diag, r, c, 1.0, (double *)a, lda, (double *)x, ldb);
    else if (j->A->dtype == LM_FLOAT32)
        scipy_cblas_strsm(COL_MAJOR, side, uplo, NO_TRANS, diag, r, c, 1.0f, (float *)a, lda, (float *)x, ldb);
    else if (j->A->dtype == LM_COMPLEX128)
        scipy_cblas_ztrsm(COL_MAJOR, side, uplo, NO_TRANS, diag, r, c, one_z, a, lda, x, ldb);
    else
        scipy_cblas_ctrsm(COL_MAJOR, side, uplo, NO_TRANS, diag, r, c, one_c, a, lda, x, ldb);
#endif
    lm_la_store(j->L, b, rows, cols, x, rows);
}

/* serves: floating_and_complex */
lm_tensor *lm_cpu__linalg_solve_triangular(lm_tensor *A, lm_tensor *B, bool upper, bool left, bool unitriangular) {
    if (lm_la_check_square(A, "A")) return NULL;
    int64_t n = A->shape[A->ndim - 1];
    if (B->ndim != A->ndim || B->shape[B->ndim - (left ? 2 : 1)] != n)
        return lm_set_error(LM_ERR_RUNTIME, "Incompatible shapes of A and B for the equation %s",
                            left ? "AX = B" : "XA = B"), NULL;
    for (int i = 0; i < A->ndim - 2; i++)
        if (A->shape[i] != B->shape[i])
            return lm_set_error(LM_ERR_RUNTIME, "B must have the batch dimensions of A (broadcast them first)"), NULL;
    if (B->dtype != A->dtype)
        return lm_set_error(LM_ERR_RUNTIME, "Expected A and B to have the same dtype"), NULL;
    chol_job j = {.A = A, .B = B, .n = n, .upper = upper, .left = left, .unit = unitriangular};
    int64_t batch = lm_la_batch(A), rows = B->shape[B->ndim - 2], cols = B->shape[B->ndim - 1];
    j.L = lm_la_new(A, A->dtype, 2, (int64_t[]){rows, cols});
    j.ws = j.L ? lm_la_scratch(lm_la_slots(batch, n) * (n * n + rows * cols) * lm_itemsize(A->dtype)) : NULL;
    if (!j.ws) {
        lm_release(j.L);
        return NULL;
    }
    lm_la_for(batch, n, trsm_one, &j);
    free(j.ws);
    return j.L;
}
