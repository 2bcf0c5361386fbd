/* Symmetric / Hermitian eigendecomposition (LAPACK syevd and heevd, divide and conquer; below
 * LM_EIGH_QR_MAX rows syev and heev, whose implicit QL/QR iteration needs less set-up: 20-25%
 * less time on an 8x8 matrix with vectors; real ones that small take loom's own tridiagonal QL,
 * half syev's time): the eigenvalues are real (float32 for complex64),
 * the eigenvectors of A's dtype. Non-convergence is reported through info; linalg.eigh raises
 * LinAlgError from it on the Python side. */
#include "lapack.h"
#include "linalg_small.h"
#include "loom_ops.h"

#define LM_EIGH_QR_MAX 16

typedef struct {
    lm_tensor *A, *L, *V, *info;
    char *ws;
    int64_t n, per, lwork, lrwork, liwork;
    bool upper, compute_v;
} eigh_job;

static void eigh_one(void *ctx, int64_t b) {
    eigh_job *j = ctx;
    int dt = j->A->dtype, n = (int)j->n, ld = n > 1 ? n : 1, lw = (int)j->lwork, lrw = (int)j->lrwork,
        liw = (int)j->liwork, info = 0;
    size_t es = lm_itemsize(dt), rs = lm_itemsize(lm_la_real(dt));
    char *a = j->ws + lm_la_slot() * j->per, *w = a + j->n * j->n * es, *work = w + j->n * rs, *rwork = work + j->lwork * es;
    int *iwork = (int *)(rwork + j->lrwork * rs);
    const char *jobz = j->compute_v ? "V" : "N", *uplo = j->upper ? "U" : "L";
    lm_la_load(j->A, j->A->ndim - 2, b, a, j->n);
    if (n <= LM_LA_SMALL && !lm_is_complex(dt)) {   /* loom's loops (linalg_small.h), LAPACK if they decline */
        for (int c = 0; c < n; c++)   /* the other triangle from the one read */
            for (int r = c + 1; r < n; r++) {
                int from = j->upper ? r * n + c : c * n + r, to = j->upper ? c * n + r : r * n + c;
                memcpy(a + (size_t)to * es, a + (size_t)from * es, es);
            }
        bool ok = dt == LM_FLOAT64 ? lm_small_symeig_d(n, (double *)a, j->compute_v ? (double *)work : NULL, (double *)w)
                                   : lm_small_symeig_s(n, (float *)a, j->compute_v ? (float *)work : NULL, (float *)w);
        if (ok) {
            ((int32_t *)lm_bytes(j->info))[b] = 0;
            memcpy(lm_bytes(j->L) + b * j->n * rs, w, j->n * rs);
            if (j->compute_v) lm_la_store(j->V, b, j->n, j->n, work, j->n);
            return;
        }
        lm_la_load(j->A, j->A->ndim - 2, b, a, j->n);
    }
#ifdef LM_HAVE_BLAS
    if (n <= LM_EIGH_QR_MAX) {
        if (dt == LM_FLOAT64) scipy_dsyev_(jobz, uplo, &n, (double *)a, &ld, (double *)w, (double *)work, &lw, &info, 1, 1);
        else if (dt == LM_FLOAT32) scipy_ssyev_(jobz, uplo, &n, (float *)a, &ld, (float *)w, (float *)work, &lw, &info, 1, 1);
        else if (dt == LM_COMPLEX128)
            scipy_zheev_(jobz, uplo, &n, a, &ld, (double *)w, work, &lw, (double *)rwork, &info, 1, 1);
        else scipy_cheev_(jobz, uplo, &n, a, &ld, (float *)w, work, &lw, (float *)rwork, &info, 1, 1);
    } else if (dt == LM_FLOAT64) scipy_dsyevd_(jobz, uplo, &n, (double *)a, &ld, (double *)w, (double *)work, &lw, iwork, &liw, &info, 1, 1);
    else if (dt == LM_FLOAT32) scipy_ssyevd_(jobz, uplo, &n, (float *)a, &ld, (float *)w, (float *)work, &lw, iwork, &liw, &info, 1, 1);
    else if (dt == LM_COMPLEX128)
        scipy_zheevd_(jobz, uplo, &n, a, &ld, (double *)w, work, &lw, (double *)rwork, &lrw, iwork, &liw, &info, 1, 1);
    else scipy_cheevd_(jobz, uplo, &n, a, &ld, (float *)w, work, &lw, (float *)rwork, &lrw, iwork, &liw, &info, 1, 1);
#else
    (void)jobz, (void)uplo, (void)ld, (void)lw, (void)lrw, (void)liw, (void)iwork;
#endif
    ((int32_t *)lm_bytes(j->info))[b] = info;
    memcpy(lm_bytes(j->L) + b * j->n * rs, w, j->n * rs);
    if (j->compute_v) lm_la_store(j->V, b, j->n, j->n, a, j->n);
}

/* serves: floating_and_complex */
int lm_cpu__linalg_eigh(lm_tensor *A, bool upper, bool compute_v, lm_tensor **out) {
    if (lm_la_check_square(A, "A")) return -1;
    eigh_job j = {.A = A, .n = A->shape[A->ndim - 1], .upper = upper, .compute_v = compute_v};
    int64_t batch = lm_la_batch(A), n = j.n;
    int rdt = lm_la_real(A->dtype);
    size_t es = lm_itemsize(A->dtype), rs = lm_itemsize(rdt);
    if (lm_is_complex(A->dtype)) {   /* heevd's documented sizes with vectors (enough without, and for heev) */
        j.lwork = 2 * n + n * n + 1;
        j.lrwork = 1 + 5 * n + 2 * n * n;
    } else {
        j.lwork = 1 + 6 * n + 2 * n * n;
        j.lrwork = 0;
    }
    j.liwork = 3 + 5 * n;
    j.per = (int64_t)(es * (n * n + j.lwork) + rs * (n + j.lrwork) + sizeof(int) * j.liwork + 16 + 15) & ~(int64_t)15;
    j.L = lm_la_new(A, rdt, 1, &j.n);
    j.V = compute_v ? lm_la_new(A, A->dtype, 2, (int64_t[]){j.n, j.n}) : lm_empty(1, (int64_t[]){0}, A->dtype, A->device);
    j.info = lm_la_new(A, LM_INT32, 0, NULL);
    j.ws = j.L && j.V && j.info ? lm_la_scratch((size_t)(lm_la_slots(batch, j.n) * j.per)) : NULL;
    if (!j.ws) {
        lm_release(j.L), lm_release(j.V), lm_release(j.info);
        return -1;
    }
    lm_la_for(batch, j.n, eigh_one, &j);
    free(j.ws);
    out[0] = j.L, out[1] = j.V, out[2] = j.info;
    return 0;
}
