/* Symmetric eigendecomposition (LAPACK syevd, divide and conquer). Non-convergence is
 * reported through info; linalg.eigh raises LinAlgError from it on the Python side. */
#include "lapack.h"
#include "loom_ops.h"

typedef struct {
    lm_tensor *A, *L, *V, *info;
    char *ws;
    int64_t n, per, lwork, liwork;
    bool upper, compute_v;
} eigh_job;

static void eigh_one(void *ctx, int64_t b) {
    eigh_job *j = ctx;
    int dt = j->A->dtype, n = (int)j->n, ld = n > 1 ? n : 1, lw = (int)j->lwork, liw = (int)j->liwork, info = 0;
    size_t es = lm_itemsize(dt);
    char *a = j->ws + b * j->per, *w = a + j->n * j->n * es, *work = w + j->n * es;
    int *iwork = (int *)(work + j->lwork * es);
    const char *jobz = j->compute_v ? "V" : "N", *uplo = j->upper ? "U" : "L";
    lm_la_load(j->A, j->A->ndim - 2, b, a, j->n);
#ifdef LM_HAVE_BLAS
    if (dt == LM_FLOAT64) scipy_dsyevd_(jobz, uplo, &n, (double *)a, &ld, (double *)w, (double *)work, &lw, iwork, &liw, &info, 1, 1);
    else scipy_ssyevd_(jobz, uplo, &n, (float *)a, &ld, (float *)w, (float *)work, &lw, iwork, &liw, &info, 1, 1);
#else
    (void)jobz, (void)uplo, (void)ld, (void)lw, (void)liw, (void)iwork;
#endif
    ((int32_t *)lm_bytes(j->info))[b] = info;
    memcpy(lm_bytes(j->L) + b * j->n * es, w, j->n * es);
    if (j->compute_v) lm_la_store(j->V, b, j->n, j->n, a, j->n);
}

/* serves: floating */
int lm_cpu__linalg_eigh(lm_tensor *A, bool upper, bool compute_v, lm_tensor **out) {
    if (lm_la_check_square(A, "A")) return -1;
    eigh_job j = {.A = A, .n = A->shape[A->ndim - 1], .upper = upper, .compute_v = compute_v};
    int64_t batch = lm_la_batch(A);
    size_t es = lm_itemsize(A->dtype);
    j.lwork = 1 + 6 * j.n + 2 * j.n * j.n;
    j.liwork = 3 + 5 * j.n;
    j.per = (int64_t)(es * (j.n * j.n + j.n + j.lwork) + sizeof(int) * j.liwork + 16) & ~(int64_t)15;
    j.L = lm_la_new(A, A->dtype, 1, &j.n);
    j.V = compute_v ? lm_la_new(A, A->dtype, 2, (int64_t[]){j.n, j.n}) : lm_empty(1, (int64_t[]){0}, A->dtype, A->device);
    j.info = lm_la_new(A, LM_INT32, 0, NULL);
    j.ws = j.L && j.V && j.info ? lm_la_scratch((size_t)(batch * j.per)) : NULL;
    if (!j.ws) {
        lm_release(j.L), lm_release(j.V), lm_release(j.info);
        return -1;
    }
    lm_la_for(batch, j.n, eigh_one, &j);
    free(j.ws);
    out[0] = j.L, out[1] = j.V, out[2] = j.info;
    return 0;
}
