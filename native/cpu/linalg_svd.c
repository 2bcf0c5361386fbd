/* Singular value decomposition (LAPACK gesdd, divide and conquer; real matrices of at most
 * LM_LA_SMALL rows, no more columns than rows, by loom's one-sided Jacobi; real ones from
 * LM_BLOCKED_SVD_FROM rows and columns by gesdd's algorithm with loom's kernels in
 * linalg_blocked.c): the singular values
 * are real (float32 for complex64), U and Vh of A's dtype. Non-convergence is reported through
 * info; linalg.svd raises LinAlgError from it on the Python side. */
#include "lapack.h"
#include "linalg_blocked.h"
#include "linalg_small.h"
#include "loom_ops.h"

typedef struct {
    lm_tensor *A, *U, *S, *Vh, *info;
    char *ws;
    int64_t m, n, k, ucols, vrows, per, lwork, lrwork;
    bool compute_uv, full;
} svd_job;

/* Small real matrices with at least as many rows as columns, whose U needs no completion (not
 * full_matrices beyond square): loom's one-sided Jacobi (linalg_small.h), stored as gesdd's results
 * would be. False when it declines (the caller runs gesdd). */
static bool jacobi_fits(const svd_job *j) {
    return !lm_is_complex(j->A->dtype) && j->m >= j->n && j->m <= LM_LA_SMALL && j->n > 0 &&
           (!j->compute_uv || j->ucols == j->k);
}

static bool jacobi(svd_job *j, int64_t b, char *a, char *work) {
    int dt = j->A->dtype, m = (int)j->m, n = (int)j->n, perm[LM_LA_SMALL];
    size_t es = lm_itemsize(dt);
    char *v = work, *s = v + (size_t)(n * n) * es;
    bool ok = dt == LM_FLOAT64 ? lm_small_jacobi_svd_d(m, n, (double *)a, j->compute_uv ? (double *)v : NULL, (double *)s, perm)
                               : lm_small_jacobi_svd_s(m, n, (float *)a, j->compute_uv ? (float *)v : NULL, (float *)s, perm);
    if (!ok) return false;
    ((int32_t *)lm_bytes(j->info))[b] = 0;
    memcpy(lm_bytes(j->S) + b * n * es, s, (size_t)n * es);
    if (!j->compute_uv) return true;
    /* U: the columns of a in perm's order over their norms; Vh: the columns of v in that order, as rows */
    char *U = lm_bytes(j->U) + b * m * n * es, *Vh = lm_bytes(j->Vh) + b * n * n * es;
    for (int c = 0; c < n; c++) {
        int src = perm[c];
        if (dt == LM_FLOAT64) {
            double inv = 1 / ((double *)s)[c];
            for (int r = 0; r < m; r++) ((double *)U)[r * n + c] = ((double *)a)[src * m + r] * inv;
            for (int r = 0; r < n; r++) ((double *)Vh)[c * n + r] = ((double *)v)[src * n + r];
        } else {
            float inv = 1 / ((float *)s)[c];
            for (int r = 0; r < m; r++) ((float *)U)[r * n + c] = ((float *)a)[src * m + r] * inv;
            for (int r = 0; r < n; r++) ((float *)Vh)[c * n + r] = ((float *)v)[src * n + r];
        }
    }
    return true;
}

/* Large real matrices by lm_blocked_svd (loom's GEMM for the blocked parts), on A^T for wide
 * ones: A = V' S U'^T from A^T = U' S V'^T. Its V (not V^T) is Vh's row-major layout as it stands,
 * and its U^T the wide case's Vh. False when it declines (the caller runs gesdd). */
static bool blocked(svd_job *j, int64_t b, char *a, char *u, char *vt, char *s) {
    bool wide = j->m < j->n;
    int dt = j->A->dtype, m = (int)(wide ? j->n : j->m), n = (int)(wide ? j->m : j->n), info = 0;
    if (!lm_blocked_svd_takes(dt, m, n)) return false;
    size_t es = lm_itemsize(dt);
    int ucols = j->full ? m : n;
    /* the tall problem's u (m x ucols) and v (n x n) fit vt's and u's buffers when wide */
    char *bu = wide ? vt : u, *bv = wide ? u : vt;
    if (wide) lm_la_load_rows(j->A, j->A->ndim - 2, b, a);
    else lm_la_load(j->A, j->A->ndim - 2, b, a, j->m);
    if (!lm_blocked_svd(dt, m, n, a, s, j->compute_uv, ucols, bu, bv, &info)) return false;
    ((int32_t *)lm_bytes(j->info))[b] = info;
    memcpy(lm_bytes(j->S) + b * j->k * es, s, j->k * es);
    if (!j->compute_uv) return true;
    if (wide) {
        lm_la_store(j->U, b, n, n, bv, n);
        memcpy(lm_bytes(j->Vh) + b * (int64_t)ucols * m * es, bu, (size_t)ucols * m * es);
    } else {
        lm_la_store(j->U, b, m, ucols, bu, m);
        memcpy(lm_bytes(j->Vh) + b * (int64_t)n * n * es, bv, (size_t)n * n * es);
    }
    return true;
}

static void svd_one(void *ctx, int64_t b) {
    svd_job *j = ctx;
    int dt = j->A->dtype, m = (int)j->m, n = (int)j->n, info = 0;
    int lda = m > 1 ? m : 1, ldu = lda, ldvt = j->vrows > 1 ? (int)j->vrows : 1, lw = (int)j->lwork;
    size_t es = lm_itemsize(dt), rs = lm_itemsize(lm_la_real(dt));
    char *a = j->ws + lm_la_slot() * j->per, *u = a + j->m * j->n * es, *vt = u + j->m * j->ucols * es;
    char *work = vt + j->vrows * j->n * es, *s = work + j->lwork * es, *rwork = s + j->k * rs;
    int *iwork = (int *)(rwork + j->lrwork * rs);
    int lrw = (int)j->lrwork;
    const char *jobz = !j->compute_uv ? "N" : j->full ? "A" : "S";
    if (blocked(j, b, a, u, vt, s)) return;
    lm_la_load(j->A, j->A->ndim - 2, b, a, j->m);
    if (jacobi_fits(j)) {
        if (jacobi(j, b, a, work)) return;
        lm_la_load(j->A, j->A->ndim - 2, b, a, j->m);   /* Jacobi declined: LAPACK on the matrix as given */
    }
    if (j->k == 0) {   /* LAPACK wants no empty matrices; the full factors are identities */
        if (j->compute_uv) lm_la_eye(dt, u, j->ucols == j->m ? j->m : 0), lm_la_eye(dt, vt, j->vrows == j->n ? j->n : 0);
    } else {
#ifdef LM_HAVE_BLAS
        if (dt == LM_FLOAT64)
            scipy_dgesdd_(jobz, &m, &n, (double *)a, &lda, (double *)s, (double *)u, &ldu, (double *)vt, &ldvt,
                          (double *)work, &lw, iwork, &info, 1);
        else if (dt == LM_FLOAT32)
            scipy_sgesdd_(jobz, &m, &n, (float *)a, &lda, (float *)s, (float *)u, &ldu, (float *)vt, &ldvt,
                          (float *)work, &lw, iwork, &info, 1);
        else if (dt == LM_COMPLEX128)
            scipy_zgesdd_(jobz, &m, &n, a, &lda, (double *)s, u, &ldu, vt, &ldvt, work, &lw, (double *)rwork, iwork,
                          &info, 1);
        else
            scipy_cgesdd_(jobz, &m, &n, a, &lda, (float *)s, u, &ldu, vt, &ldvt, work, &lw, (float *)rwork, iwork,
                          &info, 1);
#else
        (void)jobz, (void)ldu, (void)ldvt, (void)lw, (void)iwork, (void)lda, (void)m, (void)n, (void)lrw;
#endif
    }
    ((int32_t *)lm_bytes(j->info))[b] = info;
    memcpy(lm_bytes(j->S) + b * j->k * rs, s, j->k * rs);
    if (!j->compute_uv) return;
    lm_la_store(j->U, b, j->m, j->ucols, u, j->m);
    lm_la_store(j->Vh, b, j->vrows, j->n, vt, j->vrows);
}

/* serves: floating_and_complex */
int lm_cpu__linalg_svd(lm_tensor *A, bool full_matrices, bool compute_uv, lm_tensor **out) {
    if (A->ndim < 2) return lm_set_error(LM_ERR_RUNTIME, "The input tensor A must have at least 2 dimensions.");
    if (lm_la_available(A)) return -1;
    svd_job j = {.A = A, .m = A->shape[A->ndim - 2], .n = A->shape[A->ndim - 1], .compute_uv = compute_uv,
                 .full = full_matrices};
    j.k = j.m < j.n ? j.m : j.n;
    int64_t mx = j.m > j.n ? j.m : j.n, mn = j.k, batch = lm_la_batch(A);
    j.ucols = compute_uv ? (full_matrices ? j.m : j.k) : 0;
    j.vrows = compute_uv ? (full_matrices ? j.n : j.k) : 0;
    /* gesdd's documented minimum for either job, and room to block */
    /* (covers the complex gesdd's 2 mn^2 + 2 mn + mx too) */
    j.lwork = 3 * mn + (mx > 5 * mn * mn + 4 * mn ? mx : 5 * mn * mn + 4 * mn) + 64 * (j.m + j.n) + 1;
    /* the complex gesdd's real workspace: 7 mn without vectors (older LAPACKs), more with them */
    int64_t r1 = 5 * mn + 7, r2 = 2 * mx + 2 * mn + 1;
    j.lrwork = lm_is_complex(A->dtype) ? (7 * mn > mn * (r1 > r2 ? r1 : r2) ? 7 * mn : mn * (r1 > r2 ? r1 : r2)) + 1 : 0;
    size_t es = lm_itemsize(A->dtype), rs = lm_itemsize(lm_la_real(A->dtype));
    j.per = (int64_t)(es * (j.m * j.n + j.m * j.ucols + j.vrows * j.n + j.lwork) + rs * (j.k + j.lrwork) +
                      sizeof(int) * 8 * (mn + 1) + 16 + 15) & ~(int64_t)15;
    j.S = lm_la_new(A, lm_la_real(A->dtype), 1, &j.k);
    j.U = lm_la_new(A, A->dtype, 2, (int64_t[]){compute_uv ? j.m : 0, j.ucols});
    j.Vh = lm_la_new(A, A->dtype, 2, (int64_t[]){j.vrows, compute_uv ? j.n : 0});
    j.info = lm_la_new(A, LM_INT32, 0, NULL);
    j.ws = j.U && j.S && j.Vh && j.info ? lm_la_scratch((size_t)(lm_la_slots(batch, mx) * j.per)) : NULL;
    if (!j.ws) {
        lm_release(j.U), lm_release(j.S), lm_release(j.Vh), lm_release(j.info);
        return -1;
    }
    lm_la_for(batch, mx, svd_one, &j);
    free(j.ws);
    out[0] = j.U, out[1] = j.S, out[2] = j.Vh, out[3] = j.info;
    return 0;
}
