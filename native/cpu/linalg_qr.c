/* QR (LAPACK geqrf, then orgqr to form Q) and householder_product (orgqr on its own); complex
 * matrices through cgeqrf/zgeqrf and cungqr/zungqr (R's diagonal is real, as LAPACK's). */
#include "lapack.h"
#include "linalg_blocked.h"
#include "linalg_small.h"
#include "loom_ops.h"

typedef struct {
    lm_tensor *A, *tau, *Q, *R;
    char *ws;
    int64_t m, n, k, qcols, rrows, per;
    bool compute_q;
} qr_job;

static void geqrf(int dt, int m, int n, void *a, void *tau, void *work, int lwork) {
    int lda = m > 1 ? m : 1, info;
    if (lm_blocked_geqrf(dt, m, n, a, tau)) return;
#ifdef LM_HAVE_BLAS
    if (dt == LM_FLOAT64) scipy_dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
    else if (dt == LM_FLOAT32) scipy_sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
    else if (dt == LM_COMPLEX128) scipy_zgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
    else scipy_cgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);
#else
    (void)dt, (void)m, (void)n, (void)lda, (void)a, (void)tau, (void)work, (void)lwork, (void)info;
#endif
}

static void orgqr(int dt, int m, int n, int k, void *a, const void *tau, void *work, int lwork) {
    int lda = m > 1 ? m : 1, info;
    if (lm_blocked_orgqr(dt, m, n, k, a, tau)) return;
#ifdef LM_HAVE_BLAS
    if (dt == LM_FLOAT64) scipy_dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
    else if (dt == LM_FLOAT32) scipy_sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
    else if (dt == LM_COMPLEX128) scipy_zungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
    else scipy_cungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
#else
    (void)dt, (void)n, (void)k, (void)lda, (void)a, (void)tau, (void)work, (void)lwork, (void)info;
#endif
}

static int64_t lwork_for(int64_t m, int64_t n) { return 64 * (m > n ? m : n) + 64; }

/* Scratch per batch element: the m x max(n, qcols) matrix, tau and the work array. */
static int qr_scratch(qr_job *j, int64_t batch) {
    int64_t w = j->n > j->qcols ? j->n : j->qcols;
    j->per = (int64_t)lm_itemsize(j->A->dtype) * (j->m * w + j->k + lwork_for(j->m, w));
    j->ws = lm_la_scratch((size_t)(lm_la_slots(batch, j->n) * j->per));
    return j->ws ? 0 : -1;
}

static void qr_one(void *ctx, int64_t b) {
    qr_job *j = ctx;
    int dt = j->A->dtype;
    size_t es = lm_itemsize(dt);
    int64_t w = j->n > j->qcols ? j->n : j->qcols, lw = lwork_for(j->m, w);
    char *a = j->ws + lm_la_slot() * j->per, *tau = a + j->m * w * es, *work = tau + j->k * es;
    lm_la_load(j->A, j->A->ndim - 2, b, a, j->m);
    /* small real matrices: loom's unblocked loops (LAPACK's entry costs more than their arithmetic) */
    bool small = j->m <= LM_LA_SMALL && w <= LM_LA_SMALL && !lm_is_complex(dt);
    if (small && !(dt == LM_FLOAT64 ? lm_small_geqr2_d((int)j->m, (int)j->n, (double *)a, (double *)tau, 1e-140, 1e140)
                                    : lm_small_geqr2_s((int)j->m, (int)j->n, (float *)a, (float *)tau, 1e-15f, 1e15f))) {
        small = false;
        lm_la_load(j->A, j->A->ndim - 2, b, a, j->m);
    }
    if (!small) geqrf(dt, (int)j->m, (int)j->n, a, tau, work, (int)lw);
    /* R: the upper triangle of the first rrows rows (rows past k are zero in complete mode) */
    lm_la_store_upper(j->R, b, j->rrows, j->n, a, j->m, j->m);
    if (!j->compute_q) return;
    if (small && dt == LM_FLOAT64) lm_small_org2r_d((int)j->m, (int)j->qcols, (int)j->k, (double *)a, (const double *)tau);
    else if (small) lm_small_org2r_s((int)j->m, (int)j->qcols, (int)j->k, (float *)a, (const float *)tau);
    else orgqr(dt, (int)j->m, (int)j->qcols, (int)j->k, a, tau, work, (int)lw);
    lm_la_store(j->Q, b, j->m, j->qcols, a, j->m);
}

/* serves: floating_and_complex */
int lm_cpu__linalg_qr(lm_tensor *A, bool complete, bool compute_q, lm_tensor **out) {
    if (A->ndim < 2) return lm_set_error(LM_ERR_RUNTIME, "The input tensor A must have at least 2 dimensions.");
    if (lm_la_available(A)) return -1;
    qr_job j = {.A = A, .m = A->shape[A->ndim - 2], .n = A->shape[A->ndim - 1], .compute_q = compute_q};
    j.k = j.m < j.n ? j.m : j.n;
    j.qcols = complete ? j.m : j.k;
    j.rrows = complete ? j.m : j.k;
    int64_t batch = lm_la_batch(A);
    j.Q = compute_q ? lm_la_new(A, A->dtype, 2, (int64_t[]){j.m, j.qcols}) : lm_empty(1, (int64_t[]){0}, A->dtype, A->device);
    j.R = lm_la_new(A, A->dtype, 2, (int64_t[]){j.rrows, j.n});
    if (!j.Q || !j.R || qr_scratch(&j, batch)) {
        lm_release(j.Q), lm_release(j.R);
        return -1;
    }
    lm_la_for(batch, j.n, qr_one, &j);
    free(j.ws);
    out[0] = j.Q, out[1] = j.R;
    return 0;
}

static void householder_one(void *ctx, int64_t b) {
    qr_job *j = ctx;
    int dt = j->A->dtype;
    size_t es = lm_itemsize(dt);
    int64_t lw = lwork_for(j->m, j->n);
    char *a = j->ws + lm_la_slot() * j->per, *tau = a + j->m * j->n * es, *work = tau + j->k * es;
    lm_la_load(j->A, j->A->ndim - 2, b, a, j->m);
    int64_t off = lm_la_offset(j->tau, j->tau->ndim - 1, b), ts = j->tau->strides[j->tau->ndim - 1];
    for (int64_t i = 0; i < j->k; i++) memcpy(tau + i * es, (const char *)j->tau->storage->data + (off + i * ts) * (int64_t)es, es);
    orgqr(dt, (int)j->m, (int)j->n, (int)j->k, a, tau, work, (int)lw);
    lm_la_store(j->Q, b, j->m, j->n, a, j->m);
}

/* serves: floating_and_complex */
lm_tensor *lm_cpu_linalg_householder_product(lm_tensor *A, lm_tensor *tau) {
    if (A->ndim < 2) return lm_set_error(LM_ERR_RUNTIME, "input must have at least 2 dimensions."), NULL;
    if (tau->ndim != A->ndim - 1)
        return lm_set_error(LM_ERR_RUNTIME, "input.dim() must be greater than or equal to 2 and tau.dim() must be input.dim() - 1"), NULL;
    if (lm_la_available(A)) return NULL;
    qr_job j = {.A = A, .tau = tau, .m = A->shape[A->ndim - 2], .n = A->shape[A->ndim - 1]};
    j.k = tau->shape[tau->ndim - 1];
    if (j.m < j.n)
        return lm_set_error(LM_ERR_RUNTIME, "input.shape[-2] must be greater than or equal to input.shape[-1]"), NULL;
    if (j.k > j.n)
        return lm_set_error(LM_ERR_RUNTIME, "input.shape[-1] must be greater than or equal to tau.shape[-1]"), NULL;
    for (int i = 0; i < A->ndim - 2; i++)
        if (A->shape[i] != tau->shape[i])
            return lm_set_error(LM_ERR_RUNTIME, "Expected batch dimensions of tau to be equal to input.shape[:-2]"), NULL;
    if (tau->dtype != A->dtype)
        return lm_set_error(LM_ERR_RUNTIME, "tau dtype %s does not match input dtype %s", lm_dtype_name(tau->dtype),
                            lm_dtype_name(A->dtype)), NULL;
    j.qcols = j.n;
    int64_t batch = lm_la_batch(A);
    j.Q = lm_la_new(A, A->dtype, 2, (int64_t[]){j.m, j.n});
    if (!j.Q || qr_scratch(&j, batch)) {
        lm_release(j.Q);
        return NULL;
    }
    lm_la_for(batch, j.n, householder_one, &j);
    free(j.ws);
    return j.Q;
}
