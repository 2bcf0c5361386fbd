/* Scans along one dim: cumsum, cumprod, logcumsumexp, cummax, cummin.
 * Integral and bool inputs sum (multiply) in int64 unless dtype= says otherwise;
 * floats accumulate in double, as PyTorch's CPU kernel does. */
#include <math.h>

#include "index_util.h"
#include "loom_ops.h"
#include "scan.h"

/* log(e^a + e^b) without overflow; equal infinities give themselves */
static inline double logaddexp_d(double a, double b) {
    if (a == b && isinf(a)) return a;
    double m = a > b ? a : b;
    return m + log1p(exp(-fabs(a - b)));
}

/* the host's loop: a row at a time */
static int run_cpu(lm_tensor *x, lm_tensor *out, int d, int mode) {
    lm_nd S, O;
    lm_as_nd(x, &S);
    lm_as_nd(out, &O);
    int rd = out->dtype;
    int64_t n = S.shape[d], rshape[LM_MAX_DIMS], rows = 1, pos[LM_MAX_DIMS] = {0};
    memcpy(rshape, S.shape, sizeof rshape);
    rshape[d] = 1;
    for (int j = 0; j < S.nd; j++) rows *= rshape[j];
    bool fl = lm_is_floating(rd);
    void *gil = rows * n > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    LM_DISPATCH(rd, T, ,
        const T *src = (const T *)lm_bytes(x);
        T *dst = (T *)lm_bytes(out);
        for (int64_t r = 0; r < rows; r++, lm_next_pos(S.nd, rshape, pos)) {
            const T *in = src + lm_pos_offset(S.nd, pos, S.strides);
            T *o = dst + lm_pos_offset(O.nd, pos, O.strides);
            /* floats accumulate in double, integers in int64 (a product wraps as unsigned) */
            double accd = mode == LM_SCAN_SUM ? 0 : mode == LM_SCAN_PROD ? 1 : -INFINITY;
            int64_t acci = mode == LM_SCAN_PROD;
            for (int64_t i = 0; i < n; i++) {
                T v = in[i * S.strides[d]];
                if (fl) {
                    accd = mode == LM_SCAN_SUM ? accd + (double)v : mode == LM_SCAN_PROD ? accd * (double)v
                                                                         : logaddexp_d(accd, (double)v);
                    o[i * O.strides[d]] = (T)accd;
                } else {
                    acci = mode == LM_SCAN_SUM ? acci + (int64_t)v : (int64_t)((uint64_t)acci * (uint64_t)(int64_t)v);
                    o[i * O.strides[d]] = (T)acci;
                }
            }
        })
    lm_gil_reacquire(gil);
    return 0;
}

lm_tensor *lm_scan(lm_tensor *self, int64_t dim, int rd, int mode, lm_scan_run run) {
    /* bool and uint16/32/64 inputs sum in int64; PyTorch has no loop summing into them (dtype=, in place) */
    if (rd == LM_BOOL || lm_is_barebones(rd)) {
        lm_set_error(LM_ERR_TYPE, "not implemented for dtype %s", lm_dtype_name(rd));
        return NULL;
    }
    int d;
    if (lm_wrap_dim(dim, self->ndim, &d)) return NULL;
    lm_tensor *x = lm_cast(self, rd);
    lm_tensor *out = x ? lm_empty(self->ndim, self->shape, rd, self->device) : NULL;
    if (!out || run(x, out, d, mode)) {
        lm_release(out);
        lm_release(x);
        return NULL;
    }
    lm_release(x);
    return out;
}

int lm_scan_sum_dtype(lm_tensor *self, int dtype) {
    return dtype >= 0 ? dtype : lm_is_floating(self->dtype) ? self->dtype : LM_INT64;
}

lm_tensor *lm_cpu_cumsum(lm_tensor *self, int64_t dim, int dtype) {
    return lm_scan(self, dim, lm_scan_sum_dtype(self, dtype), LM_SCAN_SUM, run_cpu);
}

/* cumprod: integral and bool inputs multiply in int64 unless dtype says otherwise, as cumsum */
lm_tensor *lm_cpu_cumprod(lm_tensor *self, int64_t dim, int dtype) {
    return lm_scan(self, dim, lm_scan_sum_dtype(self, dtype), LM_SCAN_PROD, run_cpu);
}

/* serves: floating */
lm_tensor *lm_cpu_logcumsumexp(lm_tensor *self, int64_t dim) {
    return lm_scan(self, dim, self->dtype, LM_SCAN_LOGSUMEXP, run_cpu);
}

/* the host's loop for cummax/cummin: a row at a time */
static int run_extreme_cpu(lm_tensor *self, lm_tensor *v, lm_tensor *ix, int d, bool is_max) {
    lm_nd S, V, I;
    lm_as_nd(self, &S);
    lm_as_nd(v, &V);
    lm_as_nd(ix, &I);
    int64_t n = S.shape[d], rshape[LM_MAX_DIMS], rows = 1, pos[LM_MAX_DIMS] = {0};
    memcpy(rshape, S.shape, sizeof rshape);
    rshape[d] = 1;
    for (int j = 0; j < S.nd; j++) rows *= rshape[j];
    void *gil = rows * n > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    int64_t *idst = (int64_t *)lm_bytes(ix);
    LM_DISPATCH(self->dtype, T, ,
        const T *src = (const T *)lm_bytes(self);
        T *vdst = (T *)lm_bytes(v);
        for (int64_t r = 0; r < rows; r++, lm_next_pos(S.nd, rshape, pos)) {
            const T *in = src + lm_pos_offset(S.nd, pos, S.strides);
            T *vo = vdst + lm_pos_offset(V.nd, pos, V.strides);
            int64_t *io = idst + lm_pos_offset(I.nd, pos, I.strides);
            T best = n ? in[0] : (T)0;
            int64_t at = 0;
            for (int64_t i = 0; i < n; i++) {
                T x = in[i * S.strides[d]];
                if (x != x || (is_max ? x >= best : x <= best)) { best = x; at = i; }
                vo[i * V.strides[d]] = best;
                io[i * I.strides[d]] = at;
            }
        })
    lm_gil_reacquire(gil);
    return 0;
}

int lm_scan_extreme(lm_tensor *self, int64_t dim, bool is_max, lm_tensor **out, lm_scan_extreme_run run) {
    int d;
    if (lm_wrap_dim(dim, self->ndim, &d)) return -1;
    lm_tensor *v = lm_empty(self->ndim, self->shape, self->dtype, self->device);
    lm_tensor *ix = v ? lm_empty(self->ndim, self->shape, LM_INT64, self->device) : NULL;
    if (!ix || run(self, v, ix, d, is_max)) {
        lm_release(v);
        lm_release(ix);
        return -1;
    }
    out[0] = v;
    out[1] = ix;
    return 0;
}

int lm_cpu_cummax(lm_tensor *self, int64_t dim, lm_tensor **out) {
    return lm_scan_extreme(self, dim, true, out, run_extreme_cpu);
}
int lm_cpu_cummin(lm_tensor *self, int64_t dim, lm_tensor **out) {
    return lm_scan_extreme(self, dim, false, out, run_extreme_cpu);
}
