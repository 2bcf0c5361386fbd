/* softmax and log_softmax along one dim, and their backward products. The
 * input is viewed as (outer, R, inner); each (outer, inner) line is done in
 * three passes (max, sum of exp, write), lines split across threads. */
#include <math.h>
#include "loom.h"
#include "loom_ops.h"
#include "iter.h"
#include "kernels/common.h"

typedef struct { int64_t outer, R, inner; } lines;

static int lines_of(const lm_tensor *t, int64_t dim, lines *L) {
    int d;
    if (lm_wrap_dim(dim, t->ndim ? t->ndim : 1, &d)) return -1;
    L->outer = 1; L->R = 1; L->inner = 1;
    for (int k = 0; k < t->ndim; k++) {
        if (k < d) L->outer *= t->shape[k];
        else if (k == d) L->R = t->shape[k];
        else L->inner *= t->shape[k];
    }
    return 0;
}

static lm_tensor *forward(lm_tensor *self, int64_t dim, int dtype, bool is_log) {
    lines L;
    if (lines_of(self, dim, &L)) return NULL;
    int dt = dtype >= 0 ? dtype : self->dtype;
    if (!lm_is_floating(dt)) {
        lm_set_error(LM_ERR_TYPE, "not implemented for dtype %s (pass dtype=loom.float32)", lm_dtype_name(dt));
        return NULL;
    }
    lm_tensor *c = lm_cast(self, dt);
    lm_tensor *x = c ? lm_contiguous(c) : NULL;
    lm_release(c);
    lm_tensor *out = x ? lm_empty_like(x, dt) : NULL;
    if (!out) { lm_release(x); return NULL; }
    bool par = lm_should_parallelize(L.outer * L.R * L.inner * 8);
    void *gil = par ? lm_gil_release() : NULL;
    const lines l = L;
    LM_DISPATCH_FLOAT(dt, T, ,
        const T *xp = (const T *)lm_bytes(x);
        T *op = (T *)lm_bytes(out);
        _Pragma("omp parallel for if (par)")
        for (int64_t line = 0; line < l.outer * l.inner; line++) {
            int64_t o = line / l.inner, i = line % l.inner, s = l.inner;
            const T *xl = xp + o * l.R * l.inner + i;
            T *ol = op + o * l.R * l.inner + i;
            T m = -INFINITY;
            for (int64_t r = 0; r < l.R; r++) m = xl[r * s] > m || xl[r * s] != xl[r * s] ? xl[r * s] : m;
            if (m == -INFINITY) m = 0;   /* an all -inf line: exp gives 0s and the result NaN, as PyTorch */
            T sum = 0;
            if (s == 1) {   /* contiguous lines: exp as an elementwise pass (it vectorises), then the sum */
                for (int64_t r = 0; r < l.R; r++) ol[r] = LM_EXP(xl[r] - m);
                for (int64_t r = 0; r < l.R; r++) sum += ol[r];
                if (is_log) {
                    T lse = m + (T)log((double)sum);
                    for (int64_t r = 0; r < l.R; r++) ol[r] = xl[r] - lse;
                } else {
                    T inv = (T)1 / sum;
                    for (int64_t r = 0; r < l.R; r++) ol[r] *= inv;
                }
            } else if (is_log) {
                for (int64_t r = 0; r < l.R; r++) sum += LM_EXP(xl[r * s] - m);
                T lse = m + (T)log((double)sum);
                for (int64_t r = 0; r < l.R; r++) ol[r * s] = xl[r * s] - lse;
            } else {
                for (int64_t r = 0; r < l.R; r++) { T e = LM_EXP(xl[r * s] - m); ol[r * s] = e; sum += e; }
                T inv = (T)1 / sum;
                for (int64_t r = 0; r < l.R; r++) ol[r * s] *= inv;
            }
        })
    lm_gil_reacquire(gil);
    lm_release(x);
    return out;
}

/* serves: floating */
lm_tensor *lm_cpu_softmax(lm_tensor *self, int64_t dim, int dtype) { return forward(self, dim, dtype, false); }
/* serves: floating */
lm_tensor *lm_cpu_log_softmax(lm_tensor *self, int64_t dim, int dtype) { return forward(self, dim, dtype, true); }

/* softmax: y * (g - sum(g * y)); log_softmax: g - exp(y) * sum(g) */
static lm_tensor *backward(lm_tensor *grad_output, lm_tensor *output, int64_t dim, bool is_log) {
    lines L;
    if (!lm_same_shape(grad_output, output)) {
        lm_set_error(LM_ERR_VALUE, "grad_output and output must have the same shape");
        return NULL;
    }
    if (grad_output->dtype != output->dtype) {
        lm_set_error(LM_ERR_TYPE, "grad_output and output must have the same dtype");
        return NULL;
    }
    if (lines_of(output, dim, &L)) return NULL;
    lm_tensor *g = lm_contiguous(grad_output), *y = lm_contiguous(output);
    lm_tensor *out = g && y ? lm_empty_like(y, y->dtype) : NULL;
    if (!out) { lm_release(g); lm_release(y); return NULL; }
    bool par = lm_should_parallelize(L.outer * L.R * L.inner * 4);
    void *gil = par ? lm_gil_release() : NULL;
    const lines l = L;
    LM_DISPATCH_FLOAT(y->dtype, T, ,
        const T *gp = (const T *)lm_bytes(g), *yp = (const T *)lm_bytes(y);
        T *op = (T *)lm_bytes(out);
        _Pragma("omp parallel for if (par)")
        for (int64_t line = 0; line < l.outer * l.inner; line++) {
            int64_t base = (line / l.inner) * l.R * l.inner + line % l.inner, s = l.inner;
            T acc = 0;
            if (is_log && s == 1) {   /* contiguous lines: the elementwise pass vectorises */
                const T *gl = gp + base, *yl = yp + base;
                T *ol = op + base;
                for (int64_t r = 0; r < l.R; r++) acc += gl[r];
                for (int64_t r = 0; r < l.R; r++) ol[r] = gl[r] - LM_EXP(yl[r]) * acc;
            } else if (is_log) {
                for (int64_t r = 0; r < l.R; r++) acc += gp[base + r * s];
                for (int64_t r = 0; r < l.R; r++) op[base + r * s] = gp[base + r * s] - LM_EXP(yp[base + r * s]) * acc;
            } else {
                for (int64_t r = 0; r < l.R; r++) acc += gp[base + r * s] * yp[base + r * s];
                for (int64_t r = 0; r < l.R; r++) op[base + r * s] = yp[base + r * s] * (gp[base + r * s] - acc);
            }
        })
    lm_gil_reacquire(gil);
    lm_release(g);
    lm_release(y);
    return out;
}

/* serves: floating */
lm_tensor *lm_cpu_softmax_backward(lm_tensor *grad_output, lm_tensor *output, int64_t dim) {
    return backward(grad_output, output, dim, false);
}

/* serves: floating */
lm_tensor *lm_cpu_log_softmax_backward(lm_tensor *grad_output, lm_tensor *output, int64_t dim) {
    return backward(grad_output, output, dim, true);
}
