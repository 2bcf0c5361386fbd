/* loom.fft's kernels, PyTorch's three: _fft_c2c (complex to complex over dims), _fft_r2c
 * (real to complex: the last of dims onesided or full, then complex over the rest) and
 * _fft_c2r (complex to real: complex over all but the last of dims, then the Hermitian
 * inverse along it). Each dim is one pass over rows: a row is gathered into a
 * contiguous buffer, transformed (fft_plan.c), and scattered to the result; many rows go
 * 16 (float) or 8 (double) at a time into split batches, transformed side by side; one
 * long row of a four-step plan is transformed from the source into the result directly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "parallel.h"
#include "fft_plan.h"

enum { C2C, R2C, C2R };

typedef struct {
    lm_fft_plan *plan;
    int mode;
    bool forward, dbl, packed;   /* packed: a real transform of even length through one of half the length */
    bool par;                    /* one row: its passes split over threads instead */
    bool batch;                  /* rows in split batches (lm_fft_run_batch; the real rows of r2c and c2r paired) */
    double scale;
    const char *src;
    char *dst;
    int ndim, d;
    int64_t shape[LM_MAX_DIMS], sst[LM_MAX_DIMS], dst_st[LM_MAX_DIMS];   /* strides in elements */
    int64_t n, src_len, dst_len, rows;
    int failed;
} pass;

/* the element offsets of row r in the source and the result (rows: every index but dim d) */
static void row_offsets(const pass *P, int64_t r, int64_t *so, int64_t *o) {
    *so = *o = 0;
    for (int k = P->ndim - 1; k >= 0; k--) {
        if (k == P->d) continue;
        int64_t i = r % P->shape[k];
        r /= P->shape[k];
        *so += i * P->sst[k];
        *o += i * P->dst_st[k];
    }
}

#define ROW_IO(T, S)                                                                                   \
static void gather_##S(const pass *P, const T *src, T *buf) {                                        \
    int64_t st = P->sst[P->d];                                                                          \
    if (P->packed && P->mode == R2C) {                                                                  \
        for (int64_t k = 0; k < P->n; k++) buf[k] = src[k * st];                                       \
        return;                                                                                         \
    }                                                                                                   \
    if (P->mode == R2C) {                                                                               \
        for (int64_t k = 0; k < P->n; k++) { buf[2 * k] = src[k * st]; buf[2 * k + 1] = 0; }           \
        return;                                                                                         \
    }                                                                                                   \
    int64_t len = P->mode == C2R ? P->n / 2 + 1 : P->n;                                                 \
    for (int64_t k = 0; k < len; k++) { buf[2 * k] = src[2 * k * st]; buf[2 * k + 1] = src[2 * k * st + 1]; } \
    if (P->mode == C2R && !P->packed)   /* the Hermitian half: X_(n-k) = conj(X_k) */                    \
        for (int64_t k = len; k < P->n; k++) { buf[2 * k] = buf[2 * (P->n - k)]; buf[2 * k + 1] = -buf[2 * (P->n - k) + 1]; } \
}                                                                                                       \
static void scatter_##S(const pass *P, const T *buf, T *dst) {                                        \
    int64_t st = P->dst_st[P->d];                                                                       \
    T s = (T)P->scale;                                                                                  \
    if (P->mode == C2R) {   /* packed: the samples in order; else the real parts */                     \
        int64_t step = P->packed ? 1 : 2;                                                               \
        for (int64_t k = 0; k < P->n; k++) dst[k * st] = buf[step * k] * s;                            \
        return;                                                                                         \
    }                                                                                                   \
    int64_t have = P->packed ? P->n / 2 + 1 : P->dst_len;   /* packed r2c: X_0..X_n/2 */                \
    for (int64_t k = 0; k < have; k++) { dst[2 * k * st] = buf[2 * k] * s; dst[2 * k * st + 1] = buf[2 * k + 1] * s; } \
    for (int64_t k = have; k < P->dst_len; k++) {   /* a full r2c: X_k = conj(X_(n-k)) */               \
        dst[2 * k * st] = buf[2 * (P->n - k)] * s; dst[2 * k * st + 1] = -buf[2 * (P->n - k) + 1] * s;  \
    }                                                                                                   \
}
ROW_IO(float, f)
ROW_IO(double, d)

/* A group of nb complex rows (row b at rows[b], element k at rows[b][2 k st]) into a split batch and back.
 * The gather reads across the rows for each k; the scatter writes 8 elements of each row in turn:
 * the faster order of each (the buffer side stays in cache either way). The inverse is conj(F conj x). */
#define BATCH_IO(T, S)                                                                                  \
static inline void bgather_##S(int64_t n, int64_t nb, int64_t st, const T *const *rows, bool conj,     \
                               T *restrict re, T *restrict im) {                                      \
    T sg = conj ? -1 : 1;                                                                             \
    for (int64_t k = 0; k < n; k++)                                                                   \
        for (int64_t b = 0; b < nb; b++) {                                                            \
            re[k * nb + b] = rows[b][2 * k * st];                                                     \
            im[k * nb + b] = sg * rows[b][2 * k * st + 1];                                            \
        }                                                                                             \
}                                                                                                     \
static inline void bscatter_##S(int64_t n, int64_t nb, int64_t st, T *const *rows, bool conj, T scale, \
                                const T *restrict re, const T *restrict im) {                         \
    T si = conj ? -scale : scale;                                                                     \
    int64_t k0 = 0;                                                                                   \
    for (; k0 + 8 <= n; k0 += 8)   /* a fixed 8: gcc keeps the 8 x nb tile in registers */            \
        for (int64_t b = 0; b < nb; b++) {                                                            \
            T *restrict d = rows[b] + 2 * k0 * st;                                                    \
            const T *restrict r = re + k0 * nb + b, *restrict i = im + k0 * nb + b;                   \
            for (int64_t k = 0; k < 8; k++) {                                                         \
                d[2 * k * st] = r[k * nb] * scale;                                                    \
                d[2 * k * st + 1] = i[k * nb] * si;                                                   \
            }                                                                                         \
        }                                                                                             \
    for (int64_t b = 0; b < nb; b++)                                                                  \
        for (int64_t k = k0; k < n; k++) {                                                            \
            rows[b][2 * k * st] = re[k * nb + b] * scale;                                             \
            rows[b][2 * k * st + 1] = im[k * nb + b] * si;                                            \
        }                                                                                             \
}                                                                                                     \
static void batch_rows_##S(const pass *P, int64_t lo, int64_t hi, T *buf) {                           \
    int64_t n = P->n, sst = P->sst[P->d], dst_st = P->dst_st[P->d];                                   \
    enum { L = 64 / sizeof(T) };   /* lm_fft_lanes, as a constant for the unrolled copies */          \
    T *re = buf, *im = re + n * L, *wr = im + n * L, *wi = wr + n * L;                                \
    const T *src[64];                                                                                 \
    T *dst[64];                                                                                       \
    bool gconj = P->mode == C2C && !P->forward, sconj = gconj || P->mode == C2R;                      \
    for (int64_t r0 = lo; r0 < hi; r0 += L) {                                                         \
        int64_t nb = hi - r0 < L ? hi - r0 : L;                                                       \
        for (int64_t b = 0; b < nb; b++) {                                                            \
            int64_t so, o;                                                                            \
            row_offsets(P, r0 + b, &so, &o);                                                          \
            src[b] = (const T *)P->src + (P->mode == R2C ? 1 : 2) * so;                               \
            dst[b] = (T *)P->dst + (P->mode == C2R ? 1 : 2) * o;                                      \
        }                                                                                             \
        /* r2c: the reals in as pairs (z_j = x_2j + i x_2j+1; sst is 1 there), X_0..X_n/2 out; c2r:  \
         * X_0..X_n/2 in, the samples out as pairs (dst_st is 1 there) */                            \
        int64_t gn = P->mode == R2C ? n / 2 : P->mode == C2R ? n / 2 + 1 : n;                         \
        int64_t sn = P->mode == R2C ? n / 2 + 1 : P->mode == C2R ? n / 2 : n;                         \
        if (nb == L && sst == 1) bgather_##S(gn, L, 1, src, gconj, re, im);   /* constants: unrolled */ \
        else bgather_##S(gn, nb, sst, src, gconj, re, im);                                            \
        bool sw = P->mode == R2C ? lm_fft_run_batch_r2c(P->plan, nb, re, im, wr, wi)                  \
                  : P->mode == C2R ? lm_fft_run_batch_c2r(P->plan, nb, re, im, wr, wi)                \
                  : lm_fft_run_batch(P->plan, nb, re, im, wr, wi);                                    \
        if (nb == L && dst_st == 1) bscatter_##S(sn, L, 1, dst, sconj, (T)P->scale, sw ? wr : re, sw ? wi : im); \
        else bscatter_##S(sn, nb, dst_st, dst, sconj, (T)P->scale, sw ? wr : re, sw ? wi : im);        \
    }                                                                                                 \
}
BATCH_IO(float, f)
BATCH_IO(double, d)

static void pass_part(int t, int nt, void *ctx) {
    pass *P = ctx;
    int64_t lo = P->rows * t / nt, hi = P->rows * (t + 1) / nt;
    if (lo >= hi) return;
    size_t item = P->dbl ? sizeof(double) : sizeof(float);
    if (P->batch) {   /* split batches of lanes rows */
        void *buf = aligned_alloc(64, item * 4 * (size_t)(P->n * lm_fft_lanes(P->dbl)));
        if (!buf) { P->failed = 1; return; }
        if (P->dbl) batch_rows_d(P, lo, hi, buf);
        else batch_rows_f(P, lo, hi, buf);
        free(buf);
        return;
    }
    char *buf = malloc(item * 2 * (size_t)(P->n + 1 + lm_fft_scratch_len(P->plan)));
    if (!buf) { P->failed = 1; return; }
    char *scratch = buf + item * 2 * (size_t)(P->n + 1);
    size_t src_item = item * (P->mode == R2C ? 1 : 2), dst_item = item * (P->mode == C2R ? 1 : 2);
    bool direct = P->mode == C2C && P->sst[P->d] == 1 && P->dst_st[P->d] == 1;   /* a four-step needs no copies */
    for (int64_t r = lo; r < hi; r++) {
        int64_t so, o;
        row_offsets(P, r, &so, &o);
        if (direct && lm_fft_run_direct(P->plan, P->src + so * (int64_t)src_item, P->dst + o * (int64_t)dst_item,
                                        scratch, P->forward, P->scale, P->par))
            continue;
        if (P->dbl) gather_d(P, (const double *)(P->src + so * (int64_t)src_item), (double *)buf);
        else gather_f(P, (const float *)(P->src + so * (int64_t)src_item), (float *)buf);
        if (P->packed && P->mode == R2C) lm_fft_run_r2c(P->plan, buf, scratch, P->par);
        else if (P->packed) lm_fft_run_c2r(P->plan, buf, scratch, P->par);
        else lm_fft_run(P->plan, buf, scratch, P->forward, P->par);
        if (P->dbl) scatter_d(P, (const double *)buf, (double *)(P->dst + o * (int64_t)dst_item));
        else scatter_f(P, (const float *)buf, (float *)(P->dst + o * (int64_t)dst_item));
    }
    free(buf);
}

/* One pass along dim d from src to dst (the same tensor for an in-place complex pass). */
static int run_pass(lm_tensor *src, lm_tensor *dst, int d, int64_t n, int mode, bool forward, double scale) {
    pass P = {0};
    P.mode = mode;
    P.forward = forward;
    P.dbl = lm_itemsize(dst->dtype) == (mode == C2R ? 8 : 16);
    P.scale = scale;
    P.src = (const char *)lm_data_ptr(src);
    P.dst = lm_data_ptr(dst);
    P.ndim = dst->ndim;
    P.d = d;
    P.n = n;
    P.dst_len = dst->shape[d];
    P.rows = 1;
    for (int k = 0; k < dst->ndim; k++) {
        P.shape[k] = dst->shape[k];
        P.sst[k] = src->strides[k];
        P.dst_st[k] = dst->strides[k];
        if (k != d) P.rows *= dst->shape[k];
    }
    if (P.rows == 0) return 0;
    P.packed = mode != C2C && n % 2 == 0;
    if (!(P.plan = P.packed ? lm_fft_plan_real(n, P.dbl) : lm_fft_plan_get(n, P.dbl))) return -1;
    P.batch = P.rows > 1 && lm_fft_batchable(P.plan) &&
              (mode == C2C || (mode == R2C && P.packed && P.sst[d] == 1 && P.dst_len == n / 2 + 1) ||
               (mode == C2R && P.packed && P.dst_st[d] == 1));
    int64_t work = P.rows * n * 8;
    int nt = lm_should_parallelize(work) && P.rows > 1 ? lm_get_num_threads() : 1;
    if (P.rows == 1) {   /* one long transform: its passes split (the GIL still held, for their threads to let go) */
        P.par = lm_should_parallelize(work);
        pass_part(0, 1, &P);
    } else {
        lm_parallel_parts(nt, work > (1 << 16), pass_part, &P);
    }
    lm_fft_plan_put(P.plan);
    if (P.failed) return lm_set_error(LM_ERR_MEMORY, "fft: out of memory");
    return 0;
}

/* dims wrapped and distinct, each of nonzero length, and the scale of the normalization */
static int check_dims(const char *op, lm_tensor *t, const int64_t *dim, int64_t dim_len, int *out) {
    if (dim_len < 1 || dim_len > t->ndim)
        return lm_set_error(LM_ERR_RUNTIME, "%s: expected between 1 and %d dims, got %lld", op, t->ndim,
                            (long long)dim_len);
    for (int64_t i = 0; i < dim_len; i++) {
        if (lm_wrap_dim(dim[i], t->ndim, &out[i])) return -1;
        for (int64_t j = 0; j < i; j++)
            if (out[j] == out[i]) return lm_set_error(LM_ERR_RUNTIME, "%s: dims must be unique", op);
    }
    return 0;
}

static double scale_of(int64_t normalization, double numel) {
    return normalization == 1 ? 1.0 / sqrt(numel) : normalization == 2 ? 1.0 / numel : 1.0;
}

static int check_norm(int64_t normalization) {
    if (normalization < 0 || normalization > 2)
        return lm_set_error(LM_ERR_VALUE, "normalization must be 0 (none), 1 (by sqrt(n)) or 2 (by n), got %lld",
                            (long long)normalization);
    return 0;
}

static int check_len(const char *op, int64_t n) {
    if (n < 1) return lm_set_error(LM_ERR_RUNTIME, "%s: Invalid number of data points (%lld) specified", op, (long long)n);
    return 0;
}

lm_tensor *lm_cpu__fft_c2c(lm_tensor *self, const int64_t *dim, int64_t dim_len, int64_t normalization, bool forward) {
    int dims[LM_MAX_DIMS];
    if (check_dims("fft_c2c", self, dim, dim_len, dims) || check_norm(normalization)) return NULL;
    double numel = 1;
    for (int64_t i = 0; i < dim_len; i++) {
        if (check_len("fft_c2c", self->shape[dims[i]])) return NULL;
        numel *= (double)self->shape[dims[i]];
    }
    lm_tensor *out = lm_empty(self->ndim, self->shape, self->dtype, LM_CPU);
    if (!out) return NULL;
    for (int64_t i = 0; i < dim_len; i++) {
        double s = i == dim_len - 1 ? scale_of(normalization, numel) : 1.0;
        if (run_pass(i ? out : self, out, dims[i], self->shape[dims[i]], C2C, forward, s)) {
            lm_release(out);
            return NULL;
        }
    }
    return out;
}

lm_tensor *lm_cpu__fft_r2c(lm_tensor *self, const int64_t *dim, int64_t dim_len, int64_t normalization, bool onesided) {
    int dims[LM_MAX_DIMS];
    if (check_dims("fft_r2c", self, dim, dim_len, dims) || check_norm(normalization)) return NULL;
    double numel = 1;
    for (int64_t i = 0; i < dim_len; i++) {
        if (check_len("fft_r2c", self->shape[dims[i]])) return NULL;
        numel *= (double)self->shape[dims[i]];
    }
    int last = dims[dim_len - 1];
    int64_t n = self->shape[last], shape[LM_MAX_DIMS];
    memcpy(shape, self->shape, sizeof(int64_t) * (size_t)self->ndim);
    if (onesided) shape[last] = n / 2 + 1;
    lm_tensor *out = lm_empty(self->ndim, shape, lm_dtype_to_complex[self->dtype], LM_CPU);
    if (!out) return NULL;
    int err = run_pass(self, out, last, n, R2C, true, dim_len == 1 ? scale_of(normalization, numel) : 1.0);
    for (int64_t i = 0; !err && i < dim_len - 1; i++)
        err = run_pass(out, out, dims[i], shape[dims[i]], C2C, true,
                       i == dim_len - 2 ? scale_of(normalization, numel) : 1.0);
    if (err) { lm_release(out); return NULL; }
    return out;
}

lm_tensor *lm_cpu__fft_c2r(lm_tensor *self, const int64_t *dim, int64_t dim_len, int64_t normalization,
                           int64_t last_dim_size) {
    int dims[LM_MAX_DIMS];
    if (check_dims("fft_c2r", self, dim, dim_len, dims) || check_norm(normalization) ||
        check_len("fft_c2r", last_dim_size))
        return NULL;
    int last = dims[dim_len - 1];
    if (self->shape[last] != last_dim_size / 2 + 1)
        return lm_set_error(LM_ERR_RUNTIME, "fft_c2r: expected the last dim of the input to have %lld elements "
                            "(last_dim_size / 2 + 1), got %lld", (long long)(last_dim_size / 2 + 1),
                            (long long)self->shape[last]), NULL;
    double numel = (double)last_dim_size;
    for (int64_t i = 0; i < dim_len - 1; i++) {
        if (check_len("fft_c2r", self->shape[dims[i]])) return NULL;
        numel *= (double)self->shape[dims[i]];
    }
    lm_tensor *tmp = NULL;
    if (dim_len > 1) {   /* the complex passes in a copy: the input is never written */
        if (!(tmp = lm_empty(self->ndim, self->shape, self->dtype, LM_CPU))) return NULL;
        int err = 0;
        for (int64_t i = 0; !err && i < dim_len - 1; i++)
            err = run_pass(i ? tmp : self, tmp, dims[i], self->shape[dims[i]], C2C, false, 1.0);
        if (err) { lm_release(tmp); return NULL; }
    }
    int64_t shape[LM_MAX_DIMS];
    memcpy(shape, self->shape, sizeof(int64_t) * (size_t)self->ndim);
    shape[last] = last_dim_size;
    lm_tensor *out = lm_empty(self->ndim, shape, lm_dtype_to_real[self->dtype], LM_CPU);
    if (out && run_pass(tmp ? tmp : self, out, last, last_dim_size, C2R, false, scale_of(normalization, numel))) {
        lm_release(out);
        out = NULL;
    }
    lm_release(tmp);
    return out;
}
