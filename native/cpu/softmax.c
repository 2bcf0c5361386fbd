/* softmax and log_softmax along one dim, and their backward products. The
 * input is viewed as (outer, R, inner); each (outer, inner) line is done in
 * three passes (max, sum of exp, write), lines split across threads. */
#include <math.h>
#include "loom.h"
#include "loom_ops.h"
#include "iter.h"
#include "kernels/common.h"
#include "cuda_host.h"

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

/* what a range of lines needs: the input (or grad), the output, the forward
 * output y (backward only) */
typedef struct { lines l; const char *a; char *out; const char *y; bool is_log; } job;

/* Reductions over a contiguous line in 16 lanes, so gcc vectorises them (a single running max
 * or sum is a chain it may not reorder). The max passes over NaNs: a NaN still makes its whole
 * line NaN, through the sum of exponentials, as in PyTorch. */
#define LINE_HELPERS(T)                                                                                               \
    static T line_max_##T(const T *restrict x, int64_t n) {                                                           \
        T m[16], res = -INFINITY;                                                                                     \
        for (int k = 0; k < 16; k++) m[k] = -INFINITY;                                                                \
        int64_t r = 0;                                                                                                \
        for (; r + 16 <= n; r += 16)                                                                                  \
            for (int k = 0; k < 16; k++) m[k] = x[r + k] > m[k] ? x[r + k] : m[k];                                    \
        for (int k = 0; k < 16; k++) res = m[k] > res ? m[k] : res;                                                   \
        for (; r < n; r++) res = x[r] > res ? x[r] : res;                                                             \
        return res;                                                                                                   \
    }                                                                                                                 \
    static T line_dot_##T(const T *restrict x, const T *restrict y, int64_t n) {   /* y NULL: the sum of x */         \
        T acc[16] = {0}, res = 0;                                                                                     \
        int64_t r = 0;                                                                                                \
        if (y)                                                                                                        \
            for (; r + 16 <= n; r += 16)                                                                              \
                for (int k = 0; k < 16; k++) acc[k] += x[r + k] * y[r + k];                                           \
        else                                                                                                          \
            for (; r + 16 <= n; r += 16)                                                                              \
                for (int k = 0; k < 16; k++) acc[k] += x[r + k];                                                      \
        for (int k = 0; k < 16; k++) res += acc[k];                                                                   \
        for (; r < n; r++) res += y ? x[r] * y[r] : x[r];                                                             \
        return res;                                                                                                   \
    }
LINE_HELPERS(float)
LINE_HELPERS(double)

/* lines [begin, end) of the forward pass: max, sum of exp, write */
#define FORWARD(T)                                                                                                    \
    static void fwd_##T(int64_t begin, int64_t end, void *vj) {                                                       \
        const job *J = vj;                                                                                            \
        const lines l = J->l;                                                                                         \
        const bool is_log = J->is_log;                                                                                \
        const T *xp = (const T *)J->a;                                                                                \
        T *op = (T *)J->out;                                                                                          \
        for (int64_t line = begin; line < end; line++) {                                                              \
            int64_t o = line / l.inner, i = line % l.inner, s = l.inner;                                              \
            const T *xl = xp + o * l.R * l.inner + i;                                                                 \
            T *ol = op + o * l.R * l.inner + i;                                                                       \
            T m = -INFINITY;                                                                                          \
            if (s == 1) m = line_max_##T(xl, l.R);                                                                    \
            else for (int64_t r = 0; r < l.R; r++) m = xl[r * s] > m || xl[r * s] != xl[r * s] ? xl[r * s] : m;       \
            if (m == -INFINITY) m = 0;   /* an all -inf line: exp gives 0s and the result NaN, as PyTorch */          \
            T sum = 0;                                                                                                \
            if (s == 1) {   /* contiguous lines: exp as an elementwise pass (it vectorises), then the sum */          \
                for (int64_t r = 0; r < l.R; r++) ol[r] = LM_EXP(xl[r] - m);                                          \
                sum = line_dot_##T(ol, NULL, l.R);                                                                    \
                if (is_log) {                                                                                         \
                    T lse = m + (T)log((double)sum);                                                                  \
                    for (int64_t r = 0; r < l.R; r++) ol[r] = xl[r] - lse;                                            \
                } else {                                                                                              \
                    T inv = (T)1 / sum;                                                                               \
                    for (int64_t r = 0; r < l.R; r++) ol[r] *= inv;                                                   \
                }                                                                                                     \
            } else if (is_log) {                                                                                      \
                for (int64_t r = 0; r < l.R; r++) sum += LM_EXP(xl[r * s] - m);                                       \
                T lse = m + (T)log((double)sum);                                                                      \
                for (int64_t r = 0; r < l.R; r++) ol[r * s] = xl[r * s] - lse;                                        \
            } else {                                                                                                  \
                for (int64_t r = 0; r < l.R; r++) { T e = LM_EXP(xl[r * s] - m); ol[r * s] = e; sum += e; }           \
                T inv = (T)1 / sum;                                                                                   \
                for (int64_t r = 0; r < l.R; r++) ol[r * s] *= inv;                                                   \
            }                                                                                                         \
        }                                                                                                             \
    }
FORWARD(float)
FORWARD(double)

/* lines [begin, end) of the backward pass */
#define BACKWARD(T)                                                                                                   \
    static void bwd_##T(int64_t begin, int64_t end, void *vj) {                                                       \
        const job *J = vj;                                                                                            \
        const lines l = J->l;                                                                                         \
        const bool is_log = J->is_log;                                                                                \
        const T *gp = (const T *)J->a, *yp = (const T *)J->y;                                                         \
        T *op = (T *)J->out;                                                                                          \
        for (int64_t line = begin; line < end; line++) {                                                              \
            int64_t base = (line / l.inner) * l.R * l.inner + line % l.inner, s = l.inner;                            \
            T acc = 0;                                                                                                \
            if (is_log && s == 1) {   /* contiguous lines: the elementwise pass vectorises */                         \
                const T *gl = gp + base, *yl = yp + base;                                                             \
                T *ol = op + base;                                                                                    \
                acc = line_dot_##T(gl, NULL, l.R);                                                                    \
                for (int64_t r = 0; r < l.R; r++) ol[r] = gl[r] - LM_EXP(yl[r]) * acc;                                \
            } else if (is_log) {                                                                                      \
                for (int64_t r = 0; r < l.R; r++) acc += gp[base + r * s];                                            \
                for (int64_t r = 0; r < l.R; r++) op[base + r * s] = gp[base + r * s] - LM_EXP(yp[base + r * s]) * acc;\
            } else if (s == 1) {                                                                                      \
                const T *gl = gp + base, *yl = yp + base;                                                             \
                T *ol = op + base;                                                                                    \
                acc = line_dot_##T(gl, yl, l.R);                                                                      \
                for (int64_t r = 0; r < l.R; r++) ol[r] = yl[r] * (gl[r] - acc);                                      \
            } else {                                                                                                  \
                for (int64_t r = 0; r < l.R; r++) acc += gp[base + r * s] * yp[base + r * s];                         \
                for (int64_t r = 0; r < l.R; r++) op[base + r * s] = yp[base + r * s] * (gp[base + r * s] - acc);     \
            }                                                                                                         \
        }                                                                                                             \
    }
BACKWARD(float)
BACKWARD(double)

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
    job J = {L, lm_bytes(x), lm_bytes(out), NULL, is_log};
    int err = 0;
    if (x->device == LM_CUDA) err = lm_cuda_softmax_run(dt, L.outer, L.R, L.inner, J.a, NULL, J.out, is_log, false);
    else lm_parallel_for(L.outer * L.inner, L.outer * L.R * L.inner * 8, dt == LM_FLOAT32 ? fwd_float : fwd_double, &J);
    lm_release(x);
    if (err) { lm_release(out); return NULL; }
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
    job J = {L, lm_bytes(g), lm_bytes(out), lm_bytes(y), is_log};
    int err = 0;
    if (y->device == LM_CUDA) err = lm_cuda_softmax_run(y->dtype, L.outer, L.R, L.inner, J.a, J.y, J.out, is_log, true);
    else lm_parallel_for(L.outer * L.inner, L.outer * L.R * L.inner * 4, y->dtype == LM_FLOAT32 ? bwd_float : bwd_double, &J);
    lm_release(g);
    lm_release(y);
    if (err) { lm_release(out); return NULL; }
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
