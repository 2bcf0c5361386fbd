/* LU-based kernels (LAPACK getrf/getrs): lu_factor, solve, inv, det, slogdet, lu_solve.
 * Singular inputs are not errors here: each returns LAPACK's info per batch element and
 * the Python side raises linalg.LinAlgError with PyTorch's message, or hands info back
 * (the *_ex variants). */
#include <math.h>
#include "complex_types.h"
#include "lapack.h"
#include "linalg_blocked.h"
#include "linalg_small.h"
#include "loom_ops.h"

static void getrf(int dt, int m, int n, void *a, int *ipiv, int *info) {
    int lda = m > 1 ? m : 1;
    if (m == n && n <= LM_LA_SMALL && !lm_is_complex(dt)) {
        *info = dt == LM_FLOAT64 ? lm_small_getrf_d(n, a, ipiv) : lm_small_getrf_s(n, a, ipiv);
        return;
    }
    if (lm_blocked_getrf(dt, m, n, a, ipiv, info)) return;
#ifdef LM_HAVE_BLAS
    if (dt == LM_FLOAT64) scipy_dgetrf_(&m, &n, a, &lda, ipiv, info);
    else if (dt == LM_FLOAT32) scipy_sgetrf_(&m, &n, a, &lda, ipiv, info);
    else if (dt == LM_COMPLEX128) scipy_zgetrf_(&m, &n, a, &lda, ipiv, info);
    else scipy_cgetrf_(&m, &n, a, &lda, ipiv, info);
#else
    (void)dt, (void)a, (void)ipiv, *info = -lda;   /* unreachable: lm_la_available refused */
#endif
}

/* trans: A^H X = B (A^T for real A, the adjoint PyTorch's lu_solve means) */
static void getrs(int dt, bool trans, int n, int k, const void *a, const int *ipiv, void *b) {
    int ld = n > 1 ? n : 1, info;
#ifdef LM_HAVE_BLAS
    if (dt == LM_FLOAT64) scipy_dgetrs_(trans ? "T" : "N", &n, &k, a, &ld, ipiv, b, &ld, &info, 1);
    else if (dt == LM_FLOAT32) scipy_sgetrs_(trans ? "T" : "N", &n, &k, a, &ld, ipiv, b, &ld, &info, 1);
    else if (dt == LM_COMPLEX128) scipy_zgetrs_(trans ? "C" : "N", &n, &k, a, &ld, ipiv, b, &ld, &info, 1);
    else scipy_cgetrs_(trans ? "C" : "N", &n, &k, a, &ld, ipiv, b, &ld, &info, 1);
#else
    (void)dt, (void)trans, (void)k, (void)a, (void)ipiv, (void)b, (void)info, (void)ld;
#endif
}

typedef struct {
    lm_tensor *A, *B, *X, *P, *info, *sign, *logabs, *det;
    char *ws;
    int64_t m, n, k, per;   /* per: bytes of scratch per batch element */
    bool trans;
    bool at;   /* factor A^T: row-major matrices are copied as they are (see use_transpose) */
} lu_job;

/* A row-major square matrix is its transpose in column-major order: factoring A^T spares the
 * transposing copy (a 512x512 solve's largest cost beside getrf), and A X = B is then solved as
 * (A^T)^T X = B. For real A only, as PyTorch does (its info codes come from A^T's factorization
 * there, and loom's then agree); det and slogdet take it for complex A too (det A^T = det A).
 * Small matrices keep loom's own loops on A. */
static bool use_transpose(const lm_tensor *A, bool complex_too) {
    int64_t n = A->shape[A->ndim - 1];
    return n > LM_LA_SMALL && (complex_too || !lm_is_complex(A->dtype)) && A->strides[A->ndim - 1] == 1 &&
           A->strides[A->ndim - 2] == n;
}

/* u_ii of a column-major matrix, complex or real (imaginary part 0) */
static lm_complex128 diag_at(int dt, const char *a, int64_t i, int64_t ld) {
    int64_t k = i * ld + i;
    switch (dt) {
    case LM_FLOAT64: return ((const double *)a)[k];
    case LM_FLOAT32: return ((const float *)a)[k];
    case LM_COMPLEX128: return ((const lm_complex128 *)a)[k];
    default: return ((const lm_complex64 *)a)[k];
    }
}

/* element b of t, from a complex value (its real part for a real t) */
static void put(lm_tensor *t, int64_t b, lm_complex128 v) {
    switch (t->dtype) {
    case LM_FLOAT64: ((double *)lm_bytes(t))[b] = creal(v); break;
    case LM_FLOAT32: ((float *)lm_bytes(t))[b] = (float)creal(v); break;
    case LM_COMPLEX128: ((lm_complex128 *)lm_bytes(t))[b] = v; break;
    default: ((lm_complex64 *)lm_bytes(t))[b] = (lm_complex64)v; break;
    }
}

/* getrf of batch element b into its scratch; the pivots follow the matrix there. */
static int factor(lu_job *j, int64_t b, char **a, int **ipiv) {
    *a = j->ws + lm_la_slot() * j->per;
    size_t es = lm_itemsize(j->A->dtype);
    *ipiv = (int *)(*a + j->m * j->n * es);
    if (j->at) memcpy(*a, (const char *)j->A->storage->data + lm_la_offset(j->A, j->A->ndim - 2, b) * (int64_t)es,
                      (size_t)(j->n * j->n) * es);
    else lm_la_load(j->A, j->A->ndim - 2, b, *a, j->m);
    int info = 0;
    getrf(j->A->dtype, (int)j->m, (int)j->n, *a, *ipiv, &info);
    if (j->info) ((int32_t *)lm_bytes(j->info))[b] = info;
    return info;
}

/* X = A^-1 B (A^-H B when trans) into matrix b of j->X from A's factors; B is matrix b of rhs, or
 * the identity when rhs is NULL. Small real matrices run loom's loops on a row-major copy of B
 * (each step one short vector operation across B's columns), which is X's own layout; LAPACK's
 * getrs works on a column-major copy. x: scratch for B. */
static void solve_store(lu_job *j, int64_t b, const lm_tensor *rhs, bool trans, const void *a, const int *ipiv, char *x) {
    int dt = j->A->dtype;
    int64_t n = j->n, k = rhs ? rhs->shape[rhs->ndim - 1] : n;
    size_t es = lm_itemsize(dt);
    if (n <= LM_LA_SMALL && !lm_is_complex(dt)) {
        if (rhs) lm_la_load_rows(rhs, rhs->ndim - 2, b, x);
        else lm_la_eye(dt, x, n);
        if (k == 1 && dt == LM_FLOAT64) lm_small_getrs_d(trans, (int)n, 1, a, ipiv, (double *)x);   /* a column */
        else if (k == 1) lm_small_getrs_s(trans, (int)n, 1, a, ipiv, (float *)x);
        else if (dt == LM_FLOAT64) lm_small_getrs_rows_d(trans, (int)n, (int)k, a, ipiv, (double *)x);
        else lm_small_getrs_rows_s(trans, (int)n, (int)k, a, ipiv, (float *)x);
        memcpy(lm_bytes(j->X) + b * n * k * es, x, (size_t)(n * k) * es);
        return;
    }
    if (rhs) lm_la_load(rhs, rhs->ndim - 2, b, x, n);
    else lm_la_eye(dt, x, n);
    getrs(dt, trans, (int)n, (int)k, a, ipiv, x);
    lm_la_store(j->X, b, n, k, x, n);
}

static void lu_factor_one(void *ctx, int64_t b) {
    lu_job *j = ctx;
    char *a;
    int *ipiv;
    factor(j, b, &a, &ipiv);
    lm_la_store(j->X, b, j->m, j->n, a, j->m);
    int64_t r = j->m < j->n ? j->m : j->n;
    memcpy((int32_t *)lm_bytes(j->P) + b * r, ipiv, sizeof(int32_t) * r);
}

static void solve_one(void *ctx, int64_t b) {
    lu_job *j = ctx;
    char *a, *ipiv_b;
    int *ipiv;
    if (factor(j, b, &a, &ipiv) != 0) return;   /* X stays as loaded: the caller raises or reports info */
    ipiv_b = (char *)(ipiv + j->n);
    solve_store(j, b, j->B, j->at, a, ipiv, ipiv_b);
}

static void inv_one(void *ctx, int64_t b) {
    lu_job *j = ctx;
    char *a;
    int *ipiv;
    if (factor(j, b, &a, &ipiv) != 0) return;
    if (j->at) {   /* (A^T)^-1 = (A^-1)^T, column-major: A^-1 row-major as it stands */
        char *e = (char *)(ipiv + j->n);
        size_t es = lm_itemsize(j->A->dtype);
        lm_la_eye(j->A->dtype, e, j->n);
        getrs(j->A->dtype, false, (int)j->n, (int)j->n, a, ipiv, e);
        memcpy(lm_bytes(j->X) + b * j->n * j->n * es, e, (size_t)(j->n * j->n) * es);
        return;
    }
    solve_store(j, b, NULL, false, a, ipiv, (char *)(ipiv + j->n));
}

/* det = sign(permutation) * prod(diag(U)); slogdet sums log|u_ii| so it cannot overflow, and
 * multiplies the phases u_ii / |u_ii| for the sign (+-1 for real A, on the unit circle for complex
 * A, 0 for singular A as PyTorch's). */
static void det_one(void *ctx, int64_t b) {
    lu_job *j = ctx;
    char *a;
    int *ipiv;
    factor(j, b, &a, &ipiv);
    double perm = 1, logabs = 0;
    lm_complex128 det = 1, sign = 1;
    for (int64_t i = 0; i < j->n; i++) {
        lm_complex128 u = diag_at(j->A->dtype, a, i, j->n);
        double au = cabs(u);
        if (ipiv[i] != i + 1) perm = -perm;
        det *= u;
        sign = au > 0 ? sign * (u / au) : 0;
        logabs += log(au);
    }
    if (j->det) put(j->det, b, perm * det);
    if (j->sign) put(j->sign, b, perm * sign);
    if (j->logabs) put(j->logabs, b, logabs);
}

static void lu_solve_one(void *ctx, int64_t b) {
    lu_job *j = ctx;
    char *a = j->ws + lm_la_slot() * j->per;
    int *ipiv = (int *)(a + j->n * j->n * lm_itemsize(j->A->dtype));
    char *x = (char *)(ipiv + j->n);
    lm_la_load(j->A, j->A->ndim - 2, b, a, j->n);
    const int32_t *p = (const int32_t *)j->P->storage->data + lm_la_offset(j->P, j->P->ndim - 1, b);
    for (int64_t i = 0; i < j->n; i++) ipiv[i] = p[i * j->P->strides[j->P->ndim - 1]];
    solve_store(j, b, j->B, j->trans, a, ipiv, x);
}

/* Scratch for every batch element at once (the matrices, pivots and a right-hand side), so
 * the batch loop allocates nothing. */
static int job_scratch(lu_job *j, int64_t batch, int64_t rhs) {
    size_t es = lm_itemsize(j->A->dtype);
    j->per = (int64_t)(es * (j->m * j->n + rhs) + sizeof(int) * (j->n + 1));
    j->per = (j->per + 15) & ~(int64_t)15;
    j->ws = lm_la_scratch((size_t)(lm_la_slots(batch, j->n) * j->per));
    return j->ws ? 0 : -1;
}

static int run(lu_job *j, lm_la_fn fn, int64_t batch, int64_t rhs) {
    if (job_scratch(j, batch, rhs)) return -1;
    lm_la_for(batch, j->n, fn, j);
    free(j->ws);
    return 0;
}

static int same_batch(const lm_tensor *a, const lm_tensor *b, int bdims, const char *what) {
    if (a->ndim - 2 != bdims) goto bad;
    for (int i = 0; i < bdims; i++)
        if (a->shape[i] != b->shape[i]) goto bad;
    return 0;
bad:
    return lm_set_error(LM_ERR_RUNTIME, "%s must have the batch dimensions of the matrix (broadcast them first)", what);
}

static int finish(lu_job *j, int ok, lm_tensor **out, int nout, lm_tensor **res) {
    for (int i = 0; i < nout; i++) ok = ok && res[i];
    if (ok) {
        for (int i = 0; i < nout; i++) out[i] = res[i];
        return 0;
    }
    for (int i = 0; i < nout; i++) lm_release(res[i]);
    (void)j;
    return -1;
}

/* serves: floating_and_complex */
int lm_cpu__linalg_lu_factor_ex(lm_tensor *A, lm_tensor **out) {
    if (A->ndim < 2) return lm_set_error(LM_ERR_RUNTIME, "A must have at least 2 dimensions.");
    if (lm_la_available(A)) return -1;
    lu_job j = {.A = A, .m = A->shape[A->ndim - 2], .n = A->shape[A->ndim - 1]};
    int64_t r = j.m < j.n ? j.m : j.n;
    j.X = lm_la_new(A, A->dtype, 2, (int64_t[]){j.m, j.n});
    j.P = lm_la_new(A, LM_INT32, 1, &r);
    j.info = lm_la_new(A, LM_INT32, 0, NULL);
    lm_tensor *res[] = {j.X, j.P, j.info};
    return finish(&j, j.X && j.P && j.info && !run(&j, lu_factor_one, lm_la_batch(A), 0), out, 3, res);
}

/* serves: floating_and_complex */
int lm_cpu__linalg_solve_ex(lm_tensor *A, lm_tensor *B, lm_tensor **out) {
    if (lm_la_check_square(A, "A")) return -1;
    if (B->ndim < 2 || B->shape[B->ndim - 2] != A->shape[A->ndim - 1])
        return lm_set_error(LM_ERR_RUNTIME, "Incompatible shapes of A and B for the equation AX = B");
    if (same_batch(A, B, B->ndim - 2, "B")) return -1;
    if (B->dtype != A->dtype)
        return lm_set_error(LM_ERR_RUNTIME, "Expected A and B to have the same dtype, but found A of type %s and B of type %s instead",
                            lm_dtype_name(A->dtype), lm_dtype_name(B->dtype));
    lu_job j = {.A = A, .B = B, .m = A->shape[A->ndim - 1], .n = A->shape[A->ndim - 1], .k = B->shape[B->ndim - 1],
                .at = use_transpose(A, false)};
    j.X = lm_la_new(A, A->dtype, 2, (int64_t[]){j.n, j.k});
    j.info = lm_la_new(A, LM_INT32, 0, NULL);
    lm_tensor *res[] = {j.X, j.info};
    if (j.X) memset(lm_bytes(j.X), 0, lm_numel(j.X) * lm_itemsize(j.X->dtype));
    return finish(&j, j.X && j.info && !run(&j, solve_one, lm_la_batch(A), j.n * j.k), out, 2, res);
}

/* serves: floating_and_complex */
int lm_cpu__linalg_inv_ex(lm_tensor *A, lm_tensor **out) {
    if (lm_la_check_square(A, "A")) return -1;
    lu_job j = {.A = A, .m = A->shape[A->ndim - 1], .n = A->shape[A->ndim - 1], .at = use_transpose(A, false)};
    j.X = lm_la_new(A, A->dtype, 2, (int64_t[]){j.n, j.n});
    j.info = lm_la_new(A, LM_INT32, 0, NULL);
    lm_tensor *res[] = {j.X, j.info};
    if (j.X) memset(lm_bytes(j.X), 0, lm_numel(j.X) * lm_itemsize(j.X->dtype));
    return finish(&j, j.X && j.info && !run(&j, inv_one, lm_la_batch(A), j.n * j.n), out, 2, res);
}

/* serves: floating_and_complex */
lm_tensor *lm_cpu__linalg_det(lm_tensor *A) {
    if (lm_la_check_square(A, "A")) return NULL;
    lu_job j = {.A = A, .m = A->shape[A->ndim - 1], .n = A->shape[A->ndim - 1], .at = use_transpose(A, true)};
    j.det = lm_la_new(A, A->dtype, 0, NULL);
    if (!j.det || run(&j, det_one, lm_la_batch(A), 0)) {
        lm_release(j.det);
        return NULL;
    }
    return j.det;
}

/* serves: floating_and_complex */
int lm_cpu__linalg_logabsdet(lm_tensor *A, lm_tensor **out) {
    if (lm_la_check_square(A, "A")) return -1;
    lu_job j = {.A = A, .m = A->shape[A->ndim - 1], .n = A->shape[A->ndim - 1], .at = use_transpose(A, true)};
    j.sign = lm_la_new(A, A->dtype, 0, NULL);
    j.logabs = lm_la_new(A, lm_la_real(A->dtype), 0, NULL);
    lm_tensor *res[] = {j.logabs, j.sign};
    return finish(&j, j.sign && j.logabs && !run(&j, det_one, lm_la_batch(A), 0), out, 2, res);
}

/* serves: all_and_complex (checks itself: LU and B floating or complex, pivots int32) */
lm_tensor *lm_cpu__linalg_lu_solve(lm_tensor *LU, lm_tensor *pivots, lm_tensor *B, bool adjoint) {
    if (!lm_is_floating(LU->dtype) && !lm_is_complex(LU->dtype))
        return lm_set_error(LM_ERR_TYPE, "linalg.lu_solve: not implemented for dtype %s", lm_dtype_name(LU->dtype)), NULL;
    if (lm_la_check_square(LU, "linalg.lu_solve: LU")) return NULL;
    int64_t n = LU->shape[LU->ndim - 1];
    if (B->ndim < 2 || B->shape[B->ndim - 2] != n)
        return lm_set_error(LM_ERR_RUNTIME, "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B"), NULL;
    if (pivots->dtype != LM_INT32)
        return lm_set_error(LM_ERR_TYPE, "linalg.lu_solve: pivots should be a Tensor of scalar type int32"), NULL;
    if (pivots->ndim != LU->ndim - 1 || pivots->shape[pivots->ndim - 1] != n)
        return lm_set_error(LM_ERR_RUNTIME, "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same"), NULL;
    if (same_batch(LU, B, B->ndim - 2, "B") || same_batch(LU, pivots, pivots->ndim - 1, "pivots")) return NULL;
    if (B->dtype != LU->dtype)
        return lm_set_error(LM_ERR_RUNTIME, "linalg.lu_solve: Expected LU and B to have the same dtype"), NULL;
    /* getrs trusts the pivots: one out of range would read outside the matrix */
    for (int64_t b = 0, nb = lm_la_batch(LU); b < nb; b++) {
        const int32_t *p = (const int32_t *)pivots->storage->data + lm_la_offset(pivots, pivots->ndim - 1, b);
        for (int64_t i = 0; i < n; i++)
            if (p[i * pivots->strides[pivots->ndim - 1]] < 1 || p[i * pivots->strides[pivots->ndim - 1]] > n)
                return lm_set_error(LM_ERR_RUNTIME, "linalg.lu_solve: pivots must be in [1, %lld]", (long long)n), NULL;
    }
    lu_job j = {.A = LU, .B = B, .P = pivots, .m = n, .n = n, .k = B->shape[B->ndim - 1], .trans = adjoint};
    j.X = lm_la_new(LU, LU->dtype, 2, (int64_t[]){n, j.k});
    if (!j.X || run(&j, lu_solve_one, lm_la_batch(LU), n * j.k)) {
        lm_release(j.X);
        return NULL;
    }
    return j.X;
}
