/* Right-looking blocked getrf, potrf, geqrf and orgqr (and gesdd's SVD, further down): LAPACK's
 * own algorithms, with OpenBLAS factoring each panel (getrf on a tall panel, potrf on a diagonal
 * block, geqr2/org2r) and doing the swaps (laswp), triangular solves and products (trsm, trmm)
 * and block reflectors (larft), and lm_gemm doing the trailing updates, which hold nearly all the
 * flops.
 *
 * Why: this machine's environment holds OpenBLAS, and so its LAPACK, to AVX2 kernels
 * (OPENBLAS_CORETYPE=Haswell), while loom's own AVX-512 GEMM runs about twice as fast; a 512x512
 * solve spent most of its time in OpenBLAS's getrf. Only where loom has those kernels (built for an
 * AVX-512 host): elsewhere lm_gemm is OpenBLAS's gemm and the blocking would gain nothing.
 *
 * The panels are factored by the same partial-pivoting algorithm as the whole-matrix getrf, so the
 * pivots agree with LAPACK's wherever rounding does not decide between two candidates.
 *
 * OpenBLAS runs single-threaded throughout (lm_gemm_serial_begin), its calls split over loom's
 * threads where they are big enough: with its own pool busy-waiting beside loom's OpenMP threads,
 * a threaded OpenBLAS getrf of 512x512 took 50-140 ms instead of 2 on a loaded two-core machine. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif
#include "gemm.h"
#include "lapack.h"
#include "linalg_blocked.h"

/* From this many rows and columns on (min(m, n) for LU and QR), by measurement on one thread: a
 * smaller matrix is a panel or two, where the blocking only adds calls. LU took the same time
 * both ways at 64 and 96, 8% less at 128; Cholesky 3% more at 128, 5% less at 192; QR 15-20%
 * less from 96, 10-30% more at 64. */
#define LM_BLOCKED_LU_FROM 128
#define LM_BLOCKED_CHOL_FROM 192
#define LM_BLOCKED_QR_FROM 96
#ifndef LM_BLOCKED_SVD_FROM
#define LM_BLOCKED_SVD_FROM 128
#endif

#if defined(LM_HAVE_BLAS) && defined(__AVX512F__)
enum { COL_MAJOR = 102, LEFT = 141, RIGHT = 142, LOWER = 122, NO_TRANS = 111, TRANS = 112, NON_UNIT = 131, UNIT = 132 };
void scipy_slaswp_(const int *n, float *a, const int *lda, const int *k1, const int *k2, const int *ipiv,
                   const int *incx);
void scipy_dlaswp_(const int *n, double *a, const int *lda, const int *k1, const int *k2, const int *ipiv,
                   const int *incx);

/* The panel width: the panels are factored by OpenBLAS at AVX2 speed, so narrow ones leave more
 * of the flops to lm_gemm; too narrow and the updates' K is too short for its kernels. 48 was
 * the fastest of 32..96 for 256..1024-row solves and Cholesky factorizations, float32 and float64
 * (64 and 96 within a few percent). */
enum { NB = 48 };

/* W (rows x cols, leading dim rows) = -A (leading dim lda): the trailing updates subtract, and
 * lm_gemm only adds. */
#define NEGATED_COPY(T)                                                                          \
    static void negated_copy_##T(int64_t rows, int64_t cols, const T *a, int64_t lda, T *w) {    \
        for (int64_t j = 0; j < cols; j++)                                                       \
            for (int64_t i = 0; i < rows; i++) w[j * rows + i] = -a[j * lda + i];                \
    }
NEGATED_COPY(float)
NEGATED_COPY(double)

/* A22 -= L21 U12 for the column-major blocks (lda apart): lm_gemm writes row-major C, which is
 * A22 transposed, so it computes A22^T += U12^T (-L21)^T, the minus on the copy w of L21. */
static void update(int dt, int64_t rows, int64_t cols, int64_t k, char *l21, const char *u12, char *a22, int64_t lda,
                   char *w) {
    if (dt == LM_FLOAT64) negated_copy_double(rows, k, (const double *)l21, lda, (double *)w);
    else negated_copy_float(rows, k, (const float *)l21, lda, (float *)w);
    lm_gemm(dt, cols, rows, k, (lm_mat){u12, lda, 1}, (lm_mat){w, rows, 1}, a22, lda, true);
}

/* The panel's row swaps and U12 = L11^-1 A12 on the columns right of the panel, each thread on
 * its own run of columns (both act column by column). */
typedef struct {
    int dt, lda, k, kb, right;
    const int *ipiv;
    char *akk, *ar;
} swap_solve_job;

static void swap_solve_part(int t, int n, void *ctx) {
    const swap_solve_job *J = ctx;
    int lo = (int)((int64_t)J->right * t / n), hi = (int)((int64_t)J->right * (t + 1) / n), cols = hi - lo, one = 1;
    int k1 = J->k + 1, k2 = J->k + J->kb;
    if (cols <= 0) return;
    size_t es = lm_itemsize(J->dt);
    char *ar = J->ar + (size_t)lo * J->lda * es, *u12 = ar + (size_t)J->k * es;
    if (J->dt == LM_FLOAT64) {
        scipy_dlaswp_(&cols, (double *)ar, &J->lda, &k1, &k2, J->ipiv, &one);
        scipy_cblas_dtrsm(COL_MAJOR, LEFT, LOWER, NO_TRANS, UNIT, J->kb, cols, 1.0, (const double *)J->akk, J->lda,
                          (double *)u12, J->lda);
    } else {
        scipy_slaswp_(&cols, (float *)ar, &J->lda, &k1, &k2, J->ipiv, &one);
        scipy_cblas_strsm(COL_MAJOR, LEFT, LOWER, NO_TRANS, UNIT, J->kb, cols, 1.0f, (const float *)J->akk, J->lda,
                          (float *)u12, J->lda);
    }
}

/* Threads for a step of (about) `work` multiply-adds: lm_gemm's own threshold for splitting */
static int threads_for(int64_t work) { return work >= ((int64_t)1 << 21) ? lm_get_num_threads() : 1; }

bool lm_blocked_getrf(int dt, int m, int n, void *a, int *ipiv, int *info) {
    int r = m < n ? m : n, nb = NB;
    if ((dt != LM_FLOAT32 && dt != LM_FLOAT64) || r < LM_BLOCKED_LU_FROM || nb >= r) return false;
    size_t es = lm_itemsize(dt);
    char *w = malloc(es * (size_t)m * (size_t)nb), *A = a;
    if (!w) return false;
    int lda = m, one = 1, token = lm_gemm_serial_begin();
    *info = 0;
    for (int k = 0; k < r; k += nb) {
        int kb = r - k < nb ? r - k : nb, rows = m - k, pinfo = 0, k1 = k + 1, k2 = k + kb, right = n - k - kb;
        char *akk = A + ((int64_t)k * lda + k) * es;
        if (dt == LM_FLOAT64) scipy_dgetrf_(&rows, &kb, (double *)akk, &lda, ipiv + k, &pinfo);
        else scipy_sgetrf_(&rows, &kb, (float *)akk, &lda, ipiv + k, &pinfo);
        if (pinfo > 0 && *info == 0) *info = pinfo + k;
        for (int i = k; i < k + kb; i++) ipiv[i] += k;
        if (dt == LM_FLOAT64) scipy_dlaswp_(&k, (double *)A, &lda, &k1, &k2, ipiv, &one);   /* left of the panel */
        else scipy_slaswp_(&k, (float *)A, &lda, &k1, &k2, ipiv, &one);
        if (right <= 0) continue;
        swap_solve_job J = {dt, lda, k, kb, right, ipiv, akk, A + (int64_t)(k + kb) * lda * es};
        lm_gemm_threads(threads_for((int64_t)kb * kb * right), false, swap_solve_part, &J);
        char *u12 = J.ar + (int64_t)k * es;
        if (rows - kb > 0)
            update(dt, rows - kb, right, kb, akk + (int64_t)kb * es, u12, u12 + (int64_t)kb * es, lda, w);
    }
    lm_gemm_serial_end(token);
    free(w);
    return true;
}

/* potrf's trailing update A22 -= L21 L21^T touches only A22's lower triangle: column blocks of
 * width nb, each from its diagonal down (the diagonal blocks' upper halves are computed too, and
 * never read), shared out over loom's threads in runs of about equal work. */
typedef struct {
    int dt;
    int64_t r, k, nb, lda;
    char *w, *l21, *a22;
    const char *akk;
} syrk_job;

/* L21 = A21 L11^-T, and w = -L21 for syrk_part, each thread on its own run of rows */
static void solve_rows_part(int t, int n, void *ctx) {
    const syrk_job *S = ctx;
    int lo = (int)(S->r * t / n), hi = (int)(S->r * (t + 1) / n), rows = hi - lo, kb = (int)S->k, lda = (int)S->lda;
    if (rows <= 0) return;
    size_t es = lm_itemsize(S->dt);
    char *l21 = S->l21 + (size_t)lo * es, *w = S->w + (size_t)lo * es;
    if (S->dt == LM_FLOAT64) {
        scipy_cblas_dtrsm(COL_MAJOR, RIGHT, LOWER, TRANS, NON_UNIT, rows, kb, 1.0, (const double *)S->akk, lda,
                          (double *)l21, lda);
        for (int64_t j = 0; j < kb; j++)
            for (int64_t i = 0; i < rows; i++) ((double *)w)[j * S->r + i] = -((double *)l21)[j * lda + i];
    } else {
        scipy_cblas_strsm(COL_MAJOR, RIGHT, LOWER, TRANS, NON_UNIT, rows, kb, 1.0f, (const float *)S->akk, lda,
                          (float *)l21, lda);
        for (int64_t j = 0; j < kb; j++)
            for (int64_t i = 0; i < rows; i++) ((float *)w)[j * S->r + i] = -((float *)l21)[j * lda + i];
    }
}

static void syrk_part(int t, int n, void *ctx) {
    const syrk_job *S = ctx;
    size_t es = lm_itemsize(S->dt);
    int64_t total = 0, done = 0;
    for (int64_t j = 0; j < S->r; j += S->nb) total += (S->r - j) * (S->r - j < S->nb ? S->r - j : S->nb);
    for (int64_t j = 0; j < S->r; j += S->nb) {
        int64_t width = S->r - j < S->nb ? S->r - j : S->nb, work = (S->r - j) * width;
        int64_t mid = done + work / 2;
        done += work;
        if (mid < total * t / n || mid >= total * (t + 1) / n) continue;
        /* C^T(jj, i) = A22(j + i, j + jj) += sum_k -L21(j + jj, k) L21(j + i, k) */
        lm_gemm(S->dt, width, S->r - j, S->k, (lm_mat){S->w + (size_t)j * es, 1, S->r},
                (lm_mat){S->l21 + (size_t)j * es, S->lda, 1}, S->a22 + (size_t)(j * S->lda + j) * es, S->lda, true);
    }
}

bool lm_blocked_potrf(int dt, int n, void *a, int *info) {
    int nb = NB;
    if ((dt != LM_FLOAT32 && dt != LM_FLOAT64) || n < LM_BLOCKED_CHOL_FROM || nb >= n) return false;
    size_t es = lm_itemsize(dt);
    char *w = malloc(es * (size_t)n * (size_t)nb), *A = a;
    if (!w) return false;
    int lda = n, token = lm_gemm_serial_begin();
    *info = 0;
    for (int k = 0; k < n; k += nb) {
        int kb = n - k < nb ? n - k : nb, below = n - k - kb, pinfo = 0;
        char *akk = A + ((int64_t)k * lda + k) * es;
        if (dt == LM_FLOAT64) scipy_dpotrf_("L", &kb, (double *)akk, &lda, &pinfo, 1);
        else scipy_spotrf_("L", &kb, (float *)akk, &lda, &pinfo, 1);
        if (pinfo > 0) {   /* LAPACK stops at the first minor that is not positive-definite */
            *info = pinfo + k;
            break;
        }
        if (below <= 0) break;
        char *l21 = akk + (int64_t)kb * es;
        syrk_job S = {dt, below, kb, nb, lda, w, l21, l21 + (int64_t)kb * lda * es, akk};
        lm_gemm_threads(threads_for((int64_t)kb * kb * below), false, solve_rows_part, &S);
        lm_gemm_threads(threads_for((int64_t)below * below * kb / 2), false, syrk_part, &S);
    }
    lm_gemm_serial_end(token);
    free(w);
    return true;
}

/* QR: geqr2 on each panel, larft for its block reflector H = I - V T V^T, and H^T (geqrf) or H
 * (orgqr) applied to the columns right of the panel as two lm_gemm products and a small trmm,
 * larfb's work: C += V (-op(T) (V^T C)). */
void scipy_sgeqr2_(const int *m, const int *n, float *a, const int *lda, float *tau, float *work, int *info);
void scipy_dgeqr2_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work, int *info);
void scipy_sorg2r_(const int *m, const int *n, const int *k, float *a, const int *lda, const float *tau, float *work,
                   int *info);
void scipy_dorg2r_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau,
                   double *work, int *info);
void scipy_slarft_(const char *direct, const char *storev, const int *n, const int *k, const float *v, const int *ldv,
                   const float *tau, float *t, const int *ldt, lm_flen, lm_flen);
void scipy_dlarft_(const char *direct, const char *storev, const int *n, const int *k, const double *v,
                   const int *ldv, const double *tau, double *t, const int *ldt, lm_flen, lm_flen);
void scipy_cblas_strmm(int order, int side, int uplo, int ta, int diag, int m, int n, float alpha, const float *a,
                       int lda, float *b, int ldb);
void scipy_cblas_dtrmm(int order, int side, int uplo, int ta, int diag, int m, int n, double alpha, const double *a,
                       int lda, double *b, int ldb);
enum { UPPER = 121 };

/* scratch of the QR kernels: V with its unit diagonal and zeros above spelled out (rows x NB),
 * W = V^T C (NB x cols), T (NB x NB), and geqr2/org2r's work (cols) */
typedef struct {
    char *v, *w, *t, *work;
} qr_scratch;

static bool qr_scratch_new(size_t es, int64_t m, int64_t n, qr_scratch *S) {
    char *p = malloc(es * (size_t)(m * NB + n * NB + NB * NB + n + NB));
    if (!p) return false;
    *S = (qr_scratch){p, p + es * m * NB, p + es * (m + n) * NB, p + es * (m + n + NB) * NB};
    return true;
}

/* T of the kb reflectors stored below the diagonal of the rows x kb block v (lda apart) */
static void block_reflector(int dt, int rows, int kb, const char *v, int lda, const char *tau, char *t) {
    if (dt == LM_FLOAT64)
        scipy_dlarft_("F", "C", &rows, &kb, (const double *)v, &lda, (const double *)tau, (double *)t, &kb, 1, 1);
    else scipy_slarft_("F", "C", &rows, &kb, (const float *)v, &lda, (const float *)tau, (float *)t, &kb, 1, 1);
}

#define UNIT_LOWER_COPY(T)                                                                       \
    static void unit_lower_copy_##T(int64_t rows, int64_t kb, const T *v, int64_t lda, T *o) {   \
        for (int64_t j = 0; j < kb; j++)                                                         \
            for (int64_t i = 0; i < rows; i++) o[j * rows + i] = i > j ? v[j * lda + i] : i == j; \
    }
UNIT_LOWER_COPY(float)
UNIT_LOWER_COPY(double)

/* C (rows x cols, lda apart) = H^T C (trans) or H C, H = I - V T V^T from block_reflector */
static void apply_reflector(int dt, bool trans, int rows, int cols, int kb, const char *v, int lda, char *c,
                            const qr_scratch *S) {
    if (dt == LM_FLOAT64) unit_lower_copy_double(rows, kb, (const double *)v, lda, (double *)S->v);
    else unit_lower_copy_float(rows, kb, (const float *)v, lda, (float *)S->v);
    /* W^T (row-major cols x kb) = C^T V, i.e. W = V^T C column-major with leading dim kb */
    lm_gemm(dt, cols, kb, rows, (lm_mat){c, lda, 1}, (lm_mat){S->v, 1, rows}, S->w, kb, false);
    if (dt == LM_FLOAT64)
        scipy_cblas_dtrmm(COL_MAJOR, LEFT, UPPER, trans ? TRANS : NO_TRANS, NON_UNIT, kb, cols, -1.0,
                          (const double *)S->t, kb, (double *)S->w, kb);
    else
        scipy_cblas_strmm(COL_MAJOR, LEFT, UPPER, trans ? TRANS : NO_TRANS, NON_UNIT, kb, cols, -1.0f,
                          (const float *)S->t, kb, (float *)S->w, kb);
    /* C^T += W^T V^T */
    lm_gemm(dt, cols, rows, kb, (lm_mat){S->w, kb, 1}, (lm_mat){S->v, rows, 1}, c, lda, true);
}

bool lm_blocked_geqrf(int dtype, int m, int n, void *a, void *tau) {
    int r = m < n ? m : n, lda = m, info;
    if ((dtype != LM_FLOAT32 && dtype != LM_FLOAT64) || r < LM_BLOCKED_QR_FROM) return false;
    size_t es = lm_itemsize(dtype);
    qr_scratch S;
    if (!qr_scratch_new(es, m, n, &S)) return false;
    int token = lm_gemm_serial_begin();
    for (int k = 0; k < r; k += NB) {
        int kb = r - k < NB ? r - k : NB, rows = m - k, right = n - k - kb;
        char *akk = (char *)a + ((int64_t)k * lda + k) * es, *tk = (char *)tau + (size_t)k * es;
        if (dtype == LM_FLOAT64) scipy_dgeqr2_(&rows, &kb, (double *)akk, &lda, (double *)tk, (double *)S.work, &info);
        else scipy_sgeqr2_(&rows, &kb, (float *)akk, &lda, (float *)tk, (float *)S.work, &info);
        if (right <= 0) continue;
        block_reflector(dtype, rows, kb, akk, lda, tk, S.t);
        apply_reflector(dtype, true, rows, right, kb, akk, lda, akk + (int64_t)kb * lda * es, &S);
    }
    lm_gemm_serial_end(token);
    free(S.v);
    return true;
}

/* orgqr as LAPACK's: the last block of reflectors by org2r, then block by block backwards, each
 * applied to the columns right of it before org2r forms its own columns. */
bool lm_blocked_orgqr(int dtype, int m, int n, int k, void *a, const void *tau) {
    int lda = m, info;
    if ((dtype != LM_FLOAT32 && dtype != LM_FLOAT64) || k < LM_BLOCKED_QR_FROM) return false;
    size_t es = lm_itemsize(dtype);
    qr_scratch S;
    if (!qr_scratch_new(es, m, n, &S)) return false;
    int token = lm_gemm_serial_begin();
    char *A = a;
    const char *T = tau;
    for (int s = (k - 1) / NB * NB; s >= 0; s -= NB) {
        bool last = s + NB >= k;
        int rows = m - s, cols = last ? n - s : NB, kb = last ? k - s : NB, right = n - s - NB;
        char *ass = A + ((int64_t)s * lda + s) * es;
        if (!last) {
            block_reflector(dtype, rows, kb, ass, lda, T + (size_t)s * es, S.t);
            apply_reflector(dtype, false, rows, right, kb, ass, lda, ass + (int64_t)kb * lda * es, &S);
        }
        if (dtype == LM_FLOAT64)
            scipy_dorg2r_(&rows, &cols, &kb, (double *)ass, &lda, (const double *)T + s, (double *)S.work, &info);
        else scipy_sorg2r_(&rows, &cols, &kb, (float *)ass, &lda, (const float *)T + s, (float *)S.work, &info);
        for (int j = s; j < s + cols; j++) memset(A + (int64_t)j * lda * es, 0, (size_t)s * es);   /* rows above */
    }
    lm_gemm_serial_end(token);
    free(S.v);
    return true;
}


/* SVD, gesdd's algorithm for m >= n when m is not much larger than n (gesdd's path without a
 * leading QR): the bidiagonal reduction blocked as gebrd's (labrd, ported below onto AVX-512
 * matrix-vector kernels, forms each panel: half the flops, memory-bound; the panel's two rank-nb
 * updates of the trailing matrix go to lm_gemm as one product of depth 2 nb), bdsdc's divide and
 * conquer for the bidiagonal SVD, and Q and P applied to its vectors block by block through
 * apply_reflector (ormbr's work) or, on two threads, formed beside bdsdc and multiplied in.
 * On one thread (512 x 512 float64, values and vectors, a shared machine) it took 18-35% less
 * time than gesdd; values alone 20%; float32 20%. */
void scipy_sgebd2_(const int *m, const int *n, float *a, const int *lda, float *d, float *e, float *tauq, float *taup,
                   float *work, int *info);
void scipy_dgebd2_(const int *m, const int *n, double *a, const int *lda, double *d, double *e, double *tauq,
                   double *taup, double *work, int *info);
void scipy_sbdsdc_(const char *uplo, const char *compq, const int *n, float *d, float *e, float *u, const int *ldu,
                   float *vt, const int *ldvt, float *q, int *iq, float *work, int *iwork, int *info, lm_flen,
                   lm_flen);
void scipy_dbdsdc_(const char *uplo, const char *compq, const int *n, double *d, double *e, double *u,
                   const int *ldu, double *vt, const int *ldvt, double *q, int *iq, double *work, int *iwork,
                   int *info, lm_flen, lm_flen);

float scipy_slange_(const char *norm, const int *m, const int *n, const float *a, const int *lda, float *work,
                    lm_flen);
double scipy_dlange_(const char *norm, const int *m, const int *n, const double *a, const int *lda, double *work,
                     lm_flen);
void scipy_slascl_(const char *type, const int *kl, const int *ku, const float *cfrom, const float *cto, const int *m,
                   const int *n, float *a, const int *lda, int *info, lm_flen);
void scipy_dlascl_(const char *type, const int *kl, const int *ku, const double *cfrom, const double *cto,
                   const int *m, const int *n, double *a, const int *lda, int *info, lm_flen);

/* a (m x n, leading dim lda) times cto / cfrom, as LAPACK scales without over- or underflow */
static void rescale(int dt, double cfrom, double cto, int m, int n, char *a, int lda) {
    int zero = 0, info;
    if (dt == LM_FLOAT64) scipy_dlascl_("G", &zero, &zero, &cfrom, &cto, &m, &n, (double *)a, &lda, &info, 1);
    else {
        float f = (float)cfrom, t = (float)cto;
        scipy_slascl_("G", &zero, &zero, &f, &t, &m, &n, (float *)a, &lda, &info, 1);
    }
}

/* gebrd's panel width and the columns left to gebd2 at the end: narrower and fewer than LAPACK's
 * 32 and 128, as labrd's products are faster here than OpenBLAS's (and gebd2 runs on those).
 * Of 16, 24, 32, 48, 64 wide panels, 16 and 24 were fastest at 200 and 512 rows (values only, one
 * thread): 8% less than 32 wide with 128 left at 200, 3-8% at 512. */
enum { BRD_NB = 16, BRD_NX = 32 };

void scipy_slarfg_(const int *n, float *alpha, float *x, const int *incx, float *tau);
void scipy_dlarfg_(const int *n, double *alpha, double *x, const int *incx, double *tau);
void scipy_sscal_(const int *n, const float *a, float *x, const int *incx);
void scipy_dscal_(const int *n, const double *a, double *x, const int *incx);

/* labrd's matrix-vector products by AVX-512 kernels: OpenBLAS's are held to AVX2 here, and the
 * reduction's trailing matrix mostly sits in cache, where the wider loads pay. y = alpha op(A) x +
 * beta y on contiguous x and y (beta 0: y is not read), BLAS's quick return on an empty A. */
#define GEMV_KERNELS(T, P, V, W, MASK, LOADU, MLOADU, STOREU, MSTOREU, SET1, ZERO, FMA, REDUCE)                    \
    static void gemv_t_##P(int m, int n, const T *a, int lda, const T *x, T *y, T alpha, T beta) {                \
        int mw = m / W * W, j = 0;                                                                                 \
        MASK tail = (MASK)((1u << (m - mw)) - 1);                                                                  \
        for (; j + 4 <= n; j += 4) {                                                                               \
            const T *a0 = a + (int64_t)j * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;                    \
            V s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO(), xv;                                              \
            int i = 0;                                                                                             \
            for (; i < mw; i += W) {                                                                               \
                xv = LOADU(x + i);                                                                                 \
                s0 = FMA(LOADU(a0 + i), xv, s0), s1 = FMA(LOADU(a1 + i), xv, s1);                                  \
                s2 = FMA(LOADU(a2 + i), xv, s2), s3 = FMA(LOADU(a3 + i), xv, s3);                                  \
            }                                                                                                      \
            if (tail) {                                                                                            \
                xv = MLOADU(tail, x + i);                                                                          \
                s0 = FMA(MLOADU(tail, a0 + i), xv, s0), s1 = FMA(MLOADU(tail, a1 + i), xv, s1);                    \
                s2 = FMA(MLOADU(tail, a2 + i), xv, s2), s3 = FMA(MLOADU(tail, a3 + i), xv, s3);                    \
            }                                                                                                      \
            T r[4] = {REDUCE(s0), REDUCE(s1), REDUCE(s2), REDUCE(s3)};                                             \
            for (int k = 0; k < 4; k++) y[j + k] = alpha * r[k] + (beta == 0 ? 0 : beta * y[j + k]);               \
        }                                                                                                          \
        for (; j < n; j++) {                                                                                       \
            const T *a0 = a + (int64_t)j * lda;                                                                    \
            V s0 = ZERO();                                                                                         \
            int i = 0;                                                                                             \
            for (; i < mw; i += W) s0 = FMA(LOADU(a0 + i), LOADU(x + i), s0);                                      \
            if (tail) s0 = FMA(MLOADU(tail, a0 + i), MLOADU(tail, x + i), s0);                                     \
            y[j] = alpha * REDUCE(s0) + (beta == 0 ? 0 : beta * y[j]);                                             \
        }                                                                                                          \
    }                                                                                                              \
    static void gemv_n_##P(int m, int n, const T *a, int lda, const T *x, T *y, T alpha, T beta) {                \
        int mw = m / W * W, j = 0;                                                                                 \
        MASK tail = (MASK)((1u << (m - mw)) - 1);                                                                  \
        if (beta == 0) memset(y, 0, sizeof(T) * (size_t)m);                                                        \
        else if (beta != 1)                                                                                        \
            for (int i = 0; i < m; i++) y[i] *= beta;                                                              \
        for (; j + 4 <= n; j += 4) {                                                                               \
            const T *a0 = a + (int64_t)j * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;                    \
            V c0 = SET1(alpha * x[j]), c1 = SET1(alpha * x[j + 1]), c2 = SET1(alpha * x[j + 2]);                   \
            V c3 = SET1(alpha * x[j + 3]);                                                                         \
            int i = 0;                                                                                             \
            for (; i < mw; i += W) {                                                                               \
                V acc = FMA(LOADU(a0 + i), c0, LOADU(y + i));                                                      \
                acc = FMA(LOADU(a1 + i), c1, acc), acc = FMA(LOADU(a2 + i), c2, acc);                              \
                STOREU(y + i, FMA(LOADU(a3 + i), c3, acc));                                                        \
            }                                                                                                      \
            if (tail) {                                                                                            \
                V acc = FMA(MLOADU(tail, a0 + i), c0, MLOADU(tail, y + i));                                        \
                acc = FMA(MLOADU(tail, a1 + i), c1, acc), acc = FMA(MLOADU(tail, a2 + i), c2, acc);                \
                MSTOREU(y + i, tail, FMA(MLOADU(tail, a3 + i), c3, acc));                                          \
            }                                                                                                      \
        }                                                                                                          \
        for (; j < n; j++) {                                                                                       \
            const T *a0 = a + (int64_t)j * lda;                                                                    \
            V c0 = SET1(alpha * x[j]);                                                                             \
            int i = 0;                                                                                             \
            for (; i < mw; i += W) STOREU(y + i, FMA(LOADU(a0 + i), c0, LOADU(y + i)));                            \
            if (tail) MSTOREU(y + i, tail, FMA(MLOADU(tail, a0 + i), c0, MLOADU(tail, y + i)));                    \
        }                                                                                                          \
    }
GEMV_KERNELS(double, d, __m512d, 8, __mmask8, _mm512_loadu_pd, _mm512_maskz_loadu_pd, _mm512_storeu_pd,
             _mm512_mask_storeu_pd, _mm512_set1_pd, _mm512_setzero_pd, _mm512_fmadd_pd, _mm512_reduce_add_pd)
GEMV_KERNELS(float, s, __m512, 16, __mmask16, _mm512_loadu_ps, _mm512_maskz_loadu_ps, _mm512_storeu_ps,
             _mm512_mask_storeu_ps, _mm512_set1_ps, _mm512_setzero_ps, _mm512_fmadd_ps, _mm512_reduce_add_ps)

/* dgemv's interface over those kernels: strided x and y pass through tmp (m + n elements) */
#define GEMV(T, P)                                                                                                 \
    static void gemv_##P(char trans, int m, int n, T alpha, const T *a, int lda, const T *x, int incx, T beta,     \
                         T *y, int incy, T *tmp) {                                                                 \
        if (m <= 0 || n <= 0) return;                                                                              \
        bool t = trans == 'T';                                                                                     \
        int lx = t ? m : n, ly = t ? n : m;                                                                        \
        T *xs = (T *)x, *ys = y;                                                                                   \
        if (incx != 1) {                                                                                           \
            xs = tmp;                                                                                              \
            for (int i = 0; i < lx; i++) xs[i] = x[(int64_t)i * incx];                                             \
        }                                                                                                          \
        if (incy != 1) {                                                                                           \
            ys = tmp + lx;                                                                                         \
            if (beta != 0)                                                                                         \
                for (int i = 0; i < ly; i++) ys[i] = y[(int64_t)i * incy];                                         \
        }                                                                                                          \
        if (t) gemv_t_##P(m, n, a, lda, xs, ys, alpha, beta);                                                      \
        else gemv_n_##P(m, n, a, lda, xs, ys, alpha, beta);                                                        \
        if (incy != 1)                                                                                             \
            for (int i = 0; i < ly; i++) y[(int64_t)i * incy] = ys[i];                                             \
    }
GEMV(double, d)
GEMV(float, s)

/* labrd's two products with the whole trailing matrix (y = A^T v and x = A u, a quarter of the
 * reduction's flops each, memory-bound) split by columns over loom's threads, each thread on the
 * same columns in both: its share stays in its own core's cache. A^T v writes its own part of y;
 * for A u each thread but the first sums into a scratch column, added up after. */
enum { GEMV_SPLIT_FROM = 1 << 15 };   /* elements of A */

typedef struct {
    int dt, m, n, lda, incx;
    bool trans;
    const char *a, *x;
    char *y, *part;   /* part: (threads - 1) columns of m */
} gemv_job;

static void gemv_part(int t, int nt, void *ctx) {
    const gemv_job *G = ctx;
    int lo = (int)((int64_t)G->n * t / nt), hi = (int)((int64_t)G->n * (t + 1) / nt), cols = hi - lo;
    size_t es = lm_itemsize(G->dt);
    const char *a = G->a + (size_t)lo * G->lda * es, *x = G->trans ? G->x : G->x + (size_t)lo * G->incx * es;
    char *y = G->trans ? G->y + (size_t)lo * es : t == 0 ? G->y : G->part + (size_t)(t - 1) * G->m * es;
    if (cols <= 0) {
        if (!G->trans && t > 0) memset(y, 0, (size_t)G->m * es);
        return;
    }
    if (G->dt == LM_FLOAT64) {
        if (G->trans) gemv_t_d(G->m, cols, (const double *)a, G->lda, (const double *)x, (double *)y, 1, 0);
        else gemv_n_d(G->m, cols, (const double *)a, G->lda, (const double *)x, (double *)y, 1, 0);
    } else {
        if (G->trans) gemv_t_s(G->m, cols, (const float *)a, G->lda, (const float *)x, (float *)y, 1, 0);
        else gemv_n_s(G->m, cols, (const float *)a, G->lda, (const float *)x, (float *)y, 1, 0);
    }
}

/* y = op(A) x, A m x n (leading dim lda), over nt threads where A is big enough */
static void split_gemv(int dt, bool trans, int m, int n, const char *a, int lda, const char *x, int incx, char *y,
                       int nt, char *part, char *tmp) {
    if (m <= 0 || n <= 0) return;
    if ((int64_t)m * n < GEMV_SPLIT_FROM || n < 2 * nt) nt = 1;
    size_t es = lm_itemsize(dt);
    if (incx != 1) {   /* the row u of A: once into tmp for every thread */
        int len = trans ? m : n;
        for (int i = 0; i < len; i++) memcpy(tmp + (size_t)i * es, x + (size_t)i * incx * es, es);
        x = tmp, incx = 1;
    }
    gemv_job G = {dt, m, n, lda, incx, trans, a, x, y, part};
    int used = nt > 1 ? lm_gemm_threads(nt, false, gemv_part, &G) : (gemv_part(0, 1, &G), 1);
    for (int t = 1; !trans && t < used; t++) {
        if (dt == LM_FLOAT64)
            for (int i = 0; i < m; i++) ((double *)y)[i] += ((const double *)part)[(size_t)(t - 1) * m + i];
        else
            for (int i = 0; i < m; i++) ((float *)y)[i] += ((const float *)part)[(size_t)(t - 1) * m + i];
    }
}

/* LAPACK's labrd for m >= n (the same sequence of products, reflectors and scalings), its two
 * big products through split_gemv; part: scratch of (nt - 1) m elements. */
#define LABRD(T, P)                                                                                                 \
    static void labrd_##P(int m, int n, int nb, T *a, int lda, T *d, T *e, T *tauq, T *taup, T *x, int ldx, T *y,   \
                          int ldy, int nt, char *part, T *tmp) {                                                    \
        const int i1 = 1;                                                                                           \
        for (int i = 0; i < nb; i++) {                                                                              \
            int mi = m - i, ni = n - i - 1, mi1 = m - i - 1;                                                        \
            T *aii = a + (int64_t)i * lda + i;                                                                      \
            /* A(i:m, i) -= A(i:m, 0:i) Y(i, 0:i)^T + X(i:m, 0:i) A(0:i, i) */                                      \
            gemv_##P('N', mi, i, -1, a + i, lda, y + i, ldy, 1, aii, 1, tmp);                                       \
            gemv_##P('N', mi, i, -1, x + i, ldx, a + (int64_t)i * lda, 1, 1, aii, 1, tmp);                          \
            int below = mi, next = i + 1 < m ? i + 1 : m - 1;                                                       \
            scipy_##P##larfg_(&below, aii, a + (int64_t)i * lda + next, &i1, tauq + i);                             \
            d[i] = *aii;                                                                                            \
            if (i >= n - 1) continue;                                                                               \
            *aii = 1;                                                                                               \
            T *yi = y + (int64_t)i * ldy, *xi = x + (int64_t)i * ldx, *ai1 = aii + lda;                             \
            /* Y(i+1:n, i) = tauq (A(i:m, i+1:n)^T v - Y(i+1:n, 0:i) A(i:m, 0:i)^T v - A(0:i, i+1:n)^T X^T v) */   \
            split_gemv(LM_DT_##P, true, mi, ni, (const char *)ai1, lda, (const char *)aii, 1, (char *)(yi + i + 1), \
                       nt, part, (char *)tmp);                                                                      \
            gemv_##P('T', mi, i, 1, a + i, lda, aii, 1, 0, yi, 1, tmp);                                             \
            gemv_##P('N', ni, i, -1, y + i + 1, ldy, yi, 1, 1, yi + i + 1, 1, tmp);                                 \
            gemv_##P('T', mi, i, 1, x + i, ldx, aii, 1, 0, yi, 1, tmp);                                             \
            gemv_##P('T', i, ni, -1, a + (int64_t)(i + 1) * lda, lda, yi, 1, 1, yi + i + 1, 1, tmp);                \
            scipy_##P##scal_(&ni, tauq + i, yi + i + 1, &i1);                                                       \
            /* A(i, i+1:n) -= Y(i+1:n, 0:i+1) A(i, 0:i+1)^T + A(0:i, i+1:n)^T X(i, 0:i)^T */                        \
            gemv_##P('N', ni, i + 1, -1, y + i + 1, ldy, a + i, lda, 1, ai1, lda, tmp);                             \
            gemv_##P('T', i, ni, -1, a + (int64_t)(i + 1) * lda, lda, x + i, ldx, 1, ai1, lda, tmp);                \
            int right = n - i - 1, next2 = i + 2 < n ? i + 2 : n - 1;                                               \
            scipy_##P##larfg_(&right, ai1, a + (int64_t)next2 * lda + i, &lda, taup + i);                           \
            e[i] = *ai1;                                                                                            \
            *ai1 = 1;                                                                                               \
            /* X(i+1:m, i) = taup (A(i+1:m, i+1:n) u - A(i+1:m, 0:i+1) Y^T u - X(i+1:m, 0:i) A(0:i, i+1:n) u) */   \
            split_gemv(LM_DT_##P, false, mi1, ni, (const char *)(ai1 + 1), lda, (const char *)ai1, lda,             \
                       (char *)(xi + i + 1), nt, part, (char *)tmp);                                                \
            gemv_##P('T', ni, i + 1, 1, y + i + 1, ldy, ai1, lda, 0, xi, 1, tmp);                                   \
            gemv_##P('N', mi1, i + 1, -1, a + i + 1, lda, xi, 1, 1, xi + i + 1, 1, tmp);                            \
            gemv_##P('N', i, ni, 1, a + (int64_t)(i + 1) * lda, lda, ai1, lda, 0, xi, 1, tmp);                      \
            gemv_##P('N', mi1, i, -1, x + i + 1, ldx, xi, 1, 1, xi + i + 1, 1, tmp);                                \
            scipy_##P##scal_(&mi1, taup + i, xi + i + 1, &i1);                                                      \
        }                                                                                                           \
    }
enum { LM_DT_s = LM_FLOAT32, LM_DT_d = LM_FLOAT64 };
LABRD(float, s)
LABRD(double, d)

/* gebrd of the column-major m x n matrix A (m >= n, leading dim m). x (m x nb), y (n x nb), l
 * (n x 2 nb) and r (2 nb x m) are scratch. */
static void bidiagonalize(int dt, int m, int n, char *A, char *d, char *e, char *tq, char *tp, char *x, char *y,
                          char *l, char *r, int nt, char *part, char *tmp) {
    size_t es = lm_itemsize(dt);
    int lda = m, i = 0, nb = BRD_NB, info;
    for (; n - i > BRD_NX && n - i > nb; i += nb) {
        int mi = m - i, ni = n - i, rows = mi - nb, cols = ni - nb;
        char *aii = A + ((int64_t)i * lda + i) * es;
        if (dt == LM_FLOAT64)
            labrd_d(mi, ni, nb, (double *)aii, lda, (double *)d + i, (double *)e + i, (double *)tq + i,
                    (double *)tp + i, (double *)x, lda, (double *)y, n, nt, part, (double *)tmp);
        else
            labrd_s(mi, ni, nb, (float *)aii, lda, (float *)d + i, (float *)e + i, (float *)tq + i, (float *)tp + i,
                    (float *)x, lda, (float *)y, n, nt, part, (float *)tmp);
        /* A22 -= V Y2^T + X2 U with V = A(i+nb:, i:i+nb), U = A(i:i+nb, i+nb:) (labrd leaves the
         * unit entries of both in place), as the row-major A22^T += -[Y2 | U^T] [V | X2]^T */
        const char *v = aii + (int64_t)nb * es, *u = aii + (int64_t)nb * lda * es;
        for (int c = 0; c < cols; c++)
            for (int k = 0; k < nb; k++) {
                if (dt == LM_FLOAT64) {
                    ((double *)l)[c * 2 * nb + k] = -((const double *)y)[nb + c + (int64_t)k * n];
                    ((double *)l)[c * 2 * nb + nb + k] = -((const double *)u)[k + (int64_t)c * lda];
                } else {
                    ((float *)l)[c * 2 * nb + k] = -((const float *)y)[nb + c + (int64_t)k * n];
                    ((float *)l)[c * 2 * nb + nb + k] = -((const float *)u)[k + (int64_t)c * lda];
                }
            }
        for (int k = 0; k < nb; k++) {
            memcpy(r + (int64_t)k * rows * es, v + (int64_t)k * lda * es, (size_t)rows * es);
            memcpy(r + (int64_t)(nb + k) * rows * es, x + ((int64_t)k * lda + nb) * es, (size_t)rows * es);
        }
        lm_gemm(dt, cols, rows, 2 * nb, (lm_mat){l, 2 * nb, 1}, (lm_mat){r, rows, 1},
                aii + ((int64_t)nb * lda + nb) * es, lda, true);
        for (int j = i; j < i + nb; j++) {   /* the diagonal and superdiagonal labrd set to one */
            if (dt == LM_FLOAT64) {
                ((double *)A)[(int64_t)j * lda + j] = ((double *)d)[j];
                ((double *)A)[(int64_t)(j + 1) * lda + j] = ((double *)e)[j];
            } else {
                ((float *)A)[(int64_t)j * lda + j] = ((float *)d)[j];
                ((float *)A)[(int64_t)(j + 1) * lda + j] = ((float *)e)[j];
            }
        }
    }
    int mi = m - i, ni = n - i;
    char *aii = A + ((int64_t)i * lda + i) * es;
    if (dt == LM_FLOAT64)
        scipy_dgebd2_(&mi, &ni, (double *)aii, &lda, (double *)d + i, (double *)e + i, (double *)tq + i,
                      (double *)tp + i, (double *)x, &info);
    else
        scipy_sgebd2_(&mi, &ni, (float *)aii, &lda, (float *)d + i, (float *)e + i, (float *)tq + i, (float *)tp + i,
                      (float *)x, &info);
}

bool lm_blocked_svd_takes(int dt, int m, int n) {
    return (dt == LM_FLOAT32 || dt == LM_FLOAT64) && m >= n && n >= LM_BLOCKED_SVD_FROM && 6 * (int64_t)m < 11 * (int64_t)n;
}

typedef struct {
    int dt, m, n, ucols, info;
    bool uv, formed;
    char *a, *s, *e, *tq, *tp, *work, *ub, *vbt, *q, *pp;
    int *iwork;
} svd_job;

/* the bidiagonal's singular values into s, its vectors (with uv) into ub and vbt (n x n each) */
static void bidiagonal_svd(svd_job *J) {
    int one = 1;
    const char *compq = J->uv ? "I" : "N";
    const int *ld = J->uv ? &J->n : &one;
    if (J->dt == LM_FLOAT64)
        scipy_dbdsdc_("U", compq, &J->n, (double *)J->s, (double *)J->e, (double *)J->ub, ld, (double *)J->vbt, ld,
                      NULL, NULL, (double *)J->work, J->iwork, &J->info, 1, 1);
    else
        scipy_sbdsdc_("U", compq, &J->n, (float *)J->s, (float *)J->e, (float *)J->ub, ld, (float *)J->vbt, ld, NULL,
                      NULL, (float *)J->work, J->iwork, &J->info, 1, 1);
}

/* Q's first ucols columns into q (m x ucols) and P's trailing (n-1) x (n-1) block into pp, by
 * the blocked orgqr: P's n - 1 reflectors lie in A's rows right of the superdiagonal, so pp
 * holds them transposed (pp(r, j) = A(j, r + 1)), geqrf's layout. */
static bool form_q_p(svd_job *J) {
    size_t es = lm_itemsize(J->dt);
    int64_t M = J->m, N = J->n;
    memcpy(J->q, J->a, (size_t)(M * N) * es);
    for (int64_t j = 0; j < N - 1; j++)
        for (int64_t r = j + 1; r < N - 1; r++) memcpy(J->pp + (j * (N - 1) + r) * es, J->a + ((r + 1) * M + j) * es, es);
    return lm_blocked_orgqr(J->dt, J->m, J->ucols, J->n, J->q, J->tq) &&
           lm_blocked_orgqr(J->dt, J->n - 1, J->n - 1, J->n - 1, J->pp, J->tp);
}

/* With two threads, bdsdc (serial, about as long as the reduction) on one and Q and P formed on
 * the other: the back-transformations are then two plain products over both threads, not
 * ormbr's narrow block updates. */
static void svd_part(int t, int nt, void *ctx) {
    svd_job *J = ctx;
    if (t == 0) bidiagonal_svd(J);
    else if (t == 1) J->formed = form_q_p(J);
}

static void set_one(int dt, char *p) {
    if (dt == LM_FLOAT64) *(double *)p = 1;
    else *(float *)p = 1;
}

/* U = Q [Ub 0; 0 I] and V = P Vb by the block reflectors in place (one thread's way: forming Q
 * and P would cost a third more flops) */
static void apply_q_p(svd_job *J, char *U, char *V, char *at, const qr_scratch *S) {
    int dt = J->dt, m = J->m, n = J->n, lda = m;
    size_t es = lm_itemsize(dt);
    int64_t M = m, N = n;
    for (int64_t c = 0; c < J->ucols; c++) {
        if (c < N) memcpy(U + c * M * es, J->ub + c * N * es, (size_t)N * es);
        int64_t from = c < N ? N : 0;
        memset(U + (c * M + from) * es, 0, (size_t)(M - from) * es);
        if (c >= N) set_one(dt, U + (c * M + c) * es);
    }
    for (int s0 = (n - 1) / NB * NB; s0 >= 0; s0 -= NB) {
        int kb = n - s0 < NB ? n - s0 : NB, rows = m - s0;
        char *ass = J->a + ((int64_t)s0 * lda + s0) * es;
        block_reflector(dt, rows, kb, ass, lda, J->tq + (size_t)s0 * es, S->t);
        apply_reflector(dt, false, rows, J->ucols, kb, ass, lda, U + (size_t)s0 * es, S);
    }
    /* Vb = (Vb^T)^T, and P's reflectors as columns of at (at(c, r) = A(r, c)) below its
     * subdiagonal: geqrf's layout from at(1, 0) on */
    for (int64_t c = 0; c < N; c++)
        for (int64_t i = 0; i < N; i++) memcpy(V + (c * N + i) * es, J->vbt + (i * N + c) * es, es);
    for (int64_t c = 0; c < N; c++)
        for (int64_t i = c + 1; i < N; i++) memcpy(at + (c * N + i) * es, J->a + (i * M + c) * es, es);
    for (int s0 = (n - 2) / NB * NB; n > 1 && s0 >= 0; s0 -= NB) {
        int kb = n - 1 - s0 < NB ? n - 1 - s0 : NB, rows = n - 1 - s0;
        char *vss = at + ((int64_t)s0 * N + s0 + 1) * es;
        block_reflector(dt, rows, kb, vss, n, J->tp + (size_t)s0 * es, S->t);
        apply_reflector(dt, false, rows, n, kb, vss, n, V + (size_t)(s0 + 1) * es, S);
    }
}

bool lm_blocked_svd(int dt, int m, int n, void *a, void *s, bool compute_uv, int ucols, void *u, void *v, int *info) {
    if (!lm_blocked_svd_takes(dt, m, n)) return false;
    size_t es = lm_itemsize(dt);
    int64_t M = m, N = n, nb2 = 2 * BRD_NB, wide = ucols > n ? ucols : n;
    int brd_nt = lm_get_num_threads(), nt = compute_uv && brd_nt > 1 ? 2 : 1;
    int64_t gemv_room = (brd_nt + 1) * M + N;
    /* split_gemv's partial sums and gemv's room for strided vectors; e, tauq, taup (n each);
     * labrd's x, y and the update's l, r; bdsdc's work (3n^2 + 4n), Ub and Vb^T (n x n each), and
     * with vectors either Q (m x ucols) and P's block ((n-1)^2) or P's reflectors transposed */
    size_t count = gemv_room + 3 * N + M * BRD_NB + N * BRD_NB + N * nb2 + nb2 * M + 3 * N * N + 4 * N +
                   (compute_uv ? 2 * N * N + (nt > 1 ? M * ucols + (N - 1) * (N - 1) : N * N) : 0);
    char *p = malloc(es * count + sizeof(int) * 8 * N);
    qr_scratch S = {0};
    if (!p || (compute_uv && !qr_scratch_new(es, M, wide, &S))) {
        free(p);
        return false;
    }
    svd_job J = {.dt = dt, .m = m, .n = n, .ucols = ucols, .uv = compute_uv, .a = a, .s = s};
    char *part = p;
    J.e = p + gemv_room * es, J.tq = J.e + N * es, J.tp = J.tq + N * es;
    char *x = J.tp + N * es, *y = x + M * BRD_NB * es, *l = y + N * BRD_NB * es, *r = l + N * nb2 * es;
    J.work = r + nb2 * M * es, J.ub = J.work + (3 * N * N + 4 * N) * es;
    J.vbt = J.ub + (compute_uv ? N * N : 0) * es, J.q = J.vbt + (compute_uv ? N * N : 0) * es;
    J.pp = J.q + (compute_uv && nt > 1 ? M * ucols : 0) * es;
    J.iwork = (int *)(p + es * count);
    /* gesdd's guards: info -4 for a NaN, and a norm outside [smlnum, bignum] scaled into it
     * (and the singular values back) */
    double anrm = dt == LM_FLOAT64 ? scipy_dlange_("M", &m, &n, (const double *)a, &m, NULL, 1)
                                   : scipy_slange_("M", &m, &n, (const float *)a, &m, NULL, 1);
    double smlnum = dt == LM_FLOAT64 ? sqrt(DBL_MIN) / DBL_EPSILON : sqrt(FLT_MIN) / FLT_EPSILON, scaled = 0;
    if (anrm != anrm) {
        *info = -4;
        free(p);
        free(S.v);
        return true;
    }
    if (anrm > 0 && anrm < smlnum) scaled = smlnum;
    else if (anrm > 1 / smlnum) scaled = 1 / smlnum;
    if (scaled) rescale(dt, anrm, scaled, m, n, a, m);
    int token = lm_gemm_serial_begin();
    bidiagonalize(dt, m, n, J.a, J.s, J.e, J.tq, J.tp, x, y, l, r, brd_nt, part, part + (size_t)(brd_nt - 1) * M * es);
    if (nt > 1) lm_gemm_threads(nt, false, svd_part, &J);
    else bidiagonal_svd(&J);
    *info = J.info;
    if (scaled) rescale(dt, scaled, anrm, n, 1, s, n);
    if (compute_uv && J.info == 0 && J.formed) {
        /* U = Q(:, :n) Ub beside Q's other columns, and V = [1 0; 0 P'] Vb, as row-major products
         * of the transposes */
        lm_gemm(dt, N, M, N, (lm_mat){J.ub, N, 1}, (lm_mat){J.q, M, 1}, u, M, false);
        memcpy((char *)u + M * N * es, J.q + M * N * es, (size_t)(M * (ucols - N)) * es);
        for (int64_t c = 0; c < N; c++) memcpy((char *)v + c * N * es, J.vbt + c * es, es);
        lm_gemm(dt, N, N - 1, N - 1, (lm_mat){J.vbt + N * es, 1, N}, (lm_mat){J.pp, N - 1, 1}, (char *)v + es, N,
                false);
    } else if (compute_uv && J.info == 0) {
        apply_q_p(&J, u, v, J.q, &S);
    }
    lm_gemm_serial_end(token);
    free(p);
    free(S.v);
    return true;
}

#else
bool lm_blocked_getrf(int dtype, int m, int n, void *a, int *ipiv, int *info) {
    (void)dtype, (void)m, (void)n, (void)a, (void)ipiv, (void)info;
    return false;
}

bool lm_blocked_potrf(int dtype, int n, void *a, int *info) {
    (void)dtype, (void)n, (void)a, (void)info;
    return false;
}

bool lm_blocked_geqrf(int dtype, int m, int n, void *a, void *tau) {
    (void)dtype, (void)m, (void)n, (void)a, (void)tau;
    return false;
}

bool lm_blocked_orgqr(int dtype, int m, int n, int k, void *a, const void *tau) {
    (void)dtype, (void)m, (void)n, (void)k, (void)a, (void)tau;
    return false;
}

bool lm_blocked_svd_takes(int dt, int m, int n) {
    (void)dt, (void)m, (void)n;
    return false;
}

bool lm_blocked_svd(int dt, int m, int n, void *a, void *s, bool compute_uv, int ucols, void *u, void *v, int *info) {
    (void)dt, (void)m, (void)n, (void)a, (void)s, (void)compute_uv, (void)ucols, (void)u, (void)v, (void)info;
    return false;
}
#endif
