/* General (non-symmetric) eigendecomposition (LAPACK geev): eigenvalues and right eigenvectors,
 * always complex. Real input goes through sgeev/dgeev, whose conjugate pairs come back as
 * (wr, wi) and pairs of real columns (v_j = VR[:, j] +- i VR[:, j+1]); they are assembled into
 * complex results here, as PyTorch's linalg_eig_make_complex_eigenvectors does. Complex input
 * goes through cgeev/zgeev. Each eigenvector has unit 2-norm with its largest component real
 * (LAPACK's normalisation, which PyTorch returns unchanged). Non-convergence is reported
 * through info; linalg.eig raises LinAlgError from it on the Python side. */
#include "lapack.h"
#include "loom_ops.h"

#ifdef LM_HAVE_BLAS
void scipy_sgeev_(const char *jobvl, const char *jobvr, const int *n, float *a, const int *lda, float *wr, float *wi,
                  float *vl, const int *ldvl, float *vr, const int *ldvr, float *work, const int *lwork, int *info,
                  lm_flen, lm_flen);
void scipy_dgeev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda, double *wr,
                  double *wi, double *vl, const int *ldvl, double *vr, const int *ldvr, double *work,
                  const int *lwork, int *info, lm_flen, lm_flen);
void scipy_cgeev_(const char *jobvl, const char *jobvr, const int *n, float *a, const int *lda, float *w, float *vl,
                  const int *ldvl, float *vr, const int *ldvr, float *work, const int *lwork, float *rwork, int *info,
                  lm_flen, lm_flen);
void scipy_zgeev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda, double *w,
                  double *vl, const int *ldvl, double *vr, const int *ldvr, double *work, const int *lwork,
                  double *rwork, int *info, lm_flen, lm_flen);
#endif

typedef struct {
    lm_tensor *A, *L, *V, *info;
    char *ws;
    int64_t n, per, lwork;
    bool compute_v;
} eig_job;

/* Copies matrix b of a (any strides, any element size) into column-major buf. */
static void eig_load(const lm_tensor *a, int64_t b, char *buf, int64_t n) {
    int lead = a->ndim - 2;
    size_t es = lm_itemsize(a->dtype);
    int64_t rs = a->strides[lead], cs = a->strides[lead + 1], off = lm_la_offset(a, lead, b);
    const char *p = (const char *)a->storage->data + off * (int64_t)es;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) memcpy(buf + (j * n + i) * es, p + (i * rs + j * cs) * (int64_t)es, es);
}

/* The real kernel's results, assembled into complex values and vectors (row-major out). */
#define EIG_ASSEMBLE(R)                                                                                         \
    do {                                                                                                        \
        const R *wr = (const R *)w, *wi = wr + n, *vr = (const R *)v;                                           \
        R *lo = (R *)lm_bytes(j->L) + 2 * b * n;                                                                \
        for (int64_t k = 0; k < n; k++) lo[2 * k] = wr[k], lo[2 * k + 1] = wi[k];                              \
        if (j->compute_v) {                                                                                     \
            R *vo = (R *)lm_bytes(j->V) + 2 * b * n * n;                                                        \
            for (int64_t k = 0; k < n; k++) {                                                                   \
                if (wi[k] != 0 && k + 1 < n) {                                                                  \
                    for (int64_t i = 0; i < n; i++) {                                                           \
                        R re = vr[k * n + i], im = vr[(k + 1) * n + i];                                         \
                        vo[2 * (i * n + k)] = re, vo[2 * (i * n + k) + 1] = im;                                 \
                        vo[2 * (i * n + k + 1)] = re, vo[2 * (i * n + k + 1) + 1] = -im;                        \
                    }                                                                                           \
                    k++;                                                                                        \
                } else {                                                                                        \
                    for (int64_t i = 0; i < n; i++) vo[2 * (i * n + k)] = vr[k * n + i], vo[2 * (i * n + k) + 1] = 0; \
                }                                                                                               \
            }                                                                                                   \
        }                                                                                                       \
    } while (0)

static void eig_one(void *ctx, int64_t b) {
    eig_job *j = ctx;
    int dt = j->A->dtype, n = (int)j->n, ld = n > 1 ? n : 1, lw = (int)j->lwork, info = 0, one = 1;
    bool cplx = lm_is_complex(dt);
    size_t es = lm_itemsize(dt);   /* a complex element is two reals */
    char *a = j->ws + lm_la_slot() * j->per, *w = a + j->n * j->n * es, *v = w + 2 * j->n * (cplx ? es / 2 : es),
         *work = v + j->n * j->n * es, *rwork = work + j->lwork * es;
    const char *jobvr = j->compute_v ? "V" : "N";
    int ldv = j->compute_v ? ld : 1;
    eig_load(j->A, b, a, j->n);
#ifdef LM_HAVE_BLAS
    if (dt == LM_FLOAT64)
        scipy_dgeev_("N", jobvr, &n, (double *)a, &ld, (double *)w, (double *)w + n, NULL, &one, (double *)v, &ldv,
                     (double *)work, &lw, &info, 1, 1);
    else if (dt == LM_FLOAT32)
        scipy_sgeev_("N", jobvr, &n, (float *)a, &ld, (float *)w, (float *)w + n, NULL, &one, (float *)v, &ldv,
                     (float *)work, &lw, &info, 1, 1);
    else if (dt == LM_COMPLEX128)
        scipy_zgeev_("N", jobvr, &n, (double *)a, &ld, (double *)w, NULL, &one, (double *)v, &ldv, (double *)work,
                     &lw, (double *)rwork, &info, 1, 1);
    else
        scipy_cgeev_("N", jobvr, &n, (float *)a, &ld, (float *)w, NULL, &one, (float *)v, &ldv, (float *)work, &lw,
                     (float *)rwork, &info, 1, 1);
#else
    (void)jobvr, (void)ld, (void)lw, (void)one, (void)ldv, (void)rwork;
#endif
    ((int32_t *)lm_bytes(j->info))[b] = info;
    if (cplx) {
        memcpy(lm_bytes(j->L) + b * j->n * es, w, j->n * es);
        if (j->compute_v) {
            char *vo = lm_bytes(j->V) + b * j->n * j->n * es;
            for (int64_t r = 0; r < j->n; r++)
                for (int64_t c = 0; c < j->n; c++) memcpy(vo + (r * j->n + c) * es, v + (c * j->n + r) * es, es);
        }
    } else if (dt == LM_FLOAT64) {
        EIG_ASSEMBLE(double);
    } else {
        EIG_ASSEMBLE(float);
    }
}

/* serves: floating_and_complex */
int lm_cpu__linalg_eig(lm_tensor *A, bool compute_v, lm_tensor **out) {
    if (lm_la_check_square(A, "A")) return -1;
    int dt = A->dtype;
    if (dt != LM_FLOAT32 && dt != LM_FLOAT64 && dt != LM_COMPLEX64 && dt != LM_COMPLEX128)
        return lm_set_error(LM_ERR_TYPE, "\"linalg_eig_out_cpu\" not implemented for '%s'", lm_dtype_name(dt));
    int cdt = dt == LM_FLOAT32 || dt == LM_COMPLEX64 ? LM_COMPLEX64 : LM_COMPLEX128;
    bool cplx = lm_is_complex(dt);
    eig_job j = {.A = A, .n = A->shape[A->ndim - 1], .compute_v = compute_v};
    int64_t batch = lm_la_batch(A);
    size_t es = lm_itemsize(dt), rs = cplx ? es / 2 : es;
    /* geev's documented minimum is 4n (real, with vectors) / 2n (complex); ask for the blocked size */
    j.lwork = (cplx ? 2 : 4) * j.n + 1;
#ifdef LM_HAVE_BLAS
    if (j.n > 0) {
        int n = (int)j.n, q = -1, info = 0, one = 1;
        double dq[4] = {0}, rq[4] = {0};   /* ?trevc3's query writes rwork(1) */
        const char *jobvr = compute_v ? "V" : "N";
        if (dt == LM_FLOAT64) scipy_dgeev_("N", jobvr, &n, NULL, &n, NULL, NULL, NULL, &one, NULL, &n, dq, &q, &info, 1, 1);
        else if (dt == LM_FLOAT32) scipy_sgeev_("N", jobvr, &n, NULL, &n, NULL, NULL, NULL, &one, NULL, &n, (float *)dq, &q, &info, 1, 1);
        else if (dt == LM_COMPLEX128) scipy_zgeev_("N", jobvr, &n, NULL, &n, NULL, NULL, &one, NULL, &n, dq, &q, rq, &info, 1, 1);
        else scipy_cgeev_("N", jobvr, &n, NULL, &n, NULL, NULL, &one, NULL, &n, (float *)dq, &q, (float *)rq, &info, 1, 1);
        double got = dt == LM_FLOAT64 || dt == LM_COMPLEX128 ? dq[0] : (double)((float *)dq)[0];
        if (info == 0 && got > (double)j.lwork) j.lwork = (int64_t)got;
    }
#endif
    /* a, w (n complex or 2n real), v, work (lwork elements), rwork (2n reals, complex only) */
    j.per = (int64_t)(es * (2 * j.n * j.n + j.lwork) + 2 * j.n * rs + (cplx ? 2 * j.n * rs : 0) + 16 + 15) &
            ~(int64_t)15;
    j.L = lm_la_new(A, cdt, 1, &j.n);
    j.V = compute_v ? lm_la_new(A, cdt, 2, (int64_t[]){j.n, j.n}) : lm_empty(1, (int64_t[]){0}, cdt, A->device);
    j.info = lm_la_new(A, LM_INT32, 0, NULL);
    j.ws = j.L && j.V && j.info ? lm_la_scratch((size_t)(lm_la_slots(batch, j.n) * j.per)) : NULL;
    if (!j.ws) {
        lm_release(j.L), lm_release(j.V), lm_release(j.info);
        return -1;
    }
    lm_la_for(batch, j.n, eig_one, &j);
    free(j.ws);
    out[0] = j.L, out[1] = j.V, out[2] = j.info;
    return 0;
}
