/* The LSTM cell's pointwise part in one pass, forward and backward: from the pre-activation gates
 * (..., 4H) in PyTorch's order i, f, g, o and the previous cell state (..., H),
 *   c' = sigmoid(f) * c + sigmoid(i) * tanh(g),   h' = sigmoid(o) * tanh(c').
 * The gate matmuls stay gemms (nn.LSTM); this replaces the ten or so pointwise ops (and their
 * autograd nodes) of every time step. */
#include <math.h>
#include "loom.h"
#include "loom_ops.h"
#include "kernels/common.h"

static int rows_of(lm_tensor *gates, lm_tensor *cx, int64_t *rows, int64_t *H) {
    if (gates->ndim < 1 || cx->ndim != gates->ndim)
        return lm_set_error(LM_ERR_VALUE, "expected gates (..., 4*hidden) and cx (..., hidden) of the same number "
                            "of dims, got %d and %d", gates->ndim, cx->ndim);
    int nd = gates->ndim;
    *H = cx->shape[nd - 1];
    if (gates->shape[nd - 1] != 4 * *H)
        return lm_set_error(LM_ERR_VALUE, "gates' last dim %lld is not 4 * hidden (hidden %lld)",
                            (long long)gates->shape[nd - 1], (long long)*H);
    *rows = 1;
    for (int d = 0; d < nd - 1; d++) {
        if (gates->shape[d] != cx->shape[d])
            return lm_set_error(LM_ERR_VALUE, "gates and cx differ at dim %d (%lld and %lld)", d,
                                (long long)gates->shape[d], (long long)cx->shape[d]);
        *rows *= gates->shape[d];
    }
    if (gates->dtype != cx->dtype)
        return lm_set_error(LM_ERR_TYPE, "gates and cx must have one dtype, got %s and %s",
                            lm_dtype_name(gates->dtype), lm_dtype_name(cx->dtype));
    return 0;
}

/* float math for float (LM_EXP, LM_TANH: the vectorising forms), so the loops over a row vectorise */
#define SIG(x) (1 / (1 + LM_EXP(-(x))))

int lm_cpu_lstm_gates(lm_tensor *gates, lm_tensor *cx, lm_tensor **out) {
    int64_t rows, H;
    if (rows_of(gates, cx, &rows, &H)) return -1;
    lm_tensor *g = lm_contiguous(gates), *c = g ? lm_contiguous(cx) : NULL;
    lm_tensor *hy = c ? lm_empty(cx->ndim, cx->shape, cx->dtype, cx->device) : NULL;
    lm_tensor *cy = hy ? lm_empty(cx->ndim, cx->shape, cx->dtype, cx->device) : NULL;
    if (cy) {
        LM_DISPATCH_FLOAT(cx->dtype, T, ,
            const T *gp = (const T *)lm_bytes(g); const T *cp = (const T *)lm_bytes(c);
            T *hp = (T *)lm_bytes(hy); T *yp = (T *)lm_bytes(cy);
            for (int64_t r = 0; r < rows; r++) {
                const T *gr = gp + r * 4 * H;
                for (int64_t j = 0; j < H; j++) {
                    T i = (T)SIG(gr[j]), f = (T)SIG(gr[H + j]), gg = (T)LM_TANH(gr[2 * H + j]), o = (T)SIG(gr[3 * H + j]);
                    T cn = f * cp[r * H + j] + i * gg;
                    yp[r * H + j] = cn;
                    hp[r * H + j] = o * (T)LM_TANH(cn);
                }
            })
    }
    if (g) lm_release(g);
    if (c) lm_release(c);
    if (!cy) {
        if (hy) lm_release(hy);
        return -1;
    }
    out[0] = hy;
    out[1] = cy;
    return 0;
}

int lm_cpu_lstm_gates_backward(lm_tensor *grad_hy, lm_tensor *grad_cy, lm_tensor *gates, lm_tensor *cx,
                              lm_tensor *cy, lm_tensor **out) {
    int64_t rows, H;
    if (rows_of(gates, cx, &rows, &H)) return -1;
    if (!lm_same_shape(grad_hy, cx) || !lm_same_shape(grad_cy, cx) || !lm_same_shape(cy, cx))
        return lm_set_error(LM_ERR_VALUE, "grad_hy, grad_cy and cy must have cx's shape");
    lm_tensor *in[5] = {grad_hy, grad_cy, gates, cx, cy}, *k[5] = {0};
    int err = 0;
    for (int i = 0; i < 5 && !err; i++) {
        lm_tensor *t = lm_cast(in[i], cx->dtype);
        k[i] = t ? lm_contiguous(t) : NULL;
        if (t) lm_release(t);
        err = k[i] ? 0 : -1;
    }
    lm_tensor *gg_out = err ? NULL : lm_empty(gates->ndim, gates->shape, cx->dtype, cx->device);
    lm_tensor *gc_out = gg_out ? lm_empty(cx->ndim, cx->shape, cx->dtype, cx->device) : NULL;
    if (!gc_out) err = -1;
    if (!err) {
        LM_DISPATCH_FLOAT(cx->dtype, T, ,
            const T *dh = (const T *)lm_bytes(k[0]); const T *dcy = (const T *)lm_bytes(k[1]);
            const T *gp = (const T *)lm_bytes(k[2]); const T *cp = (const T *)lm_bytes(k[3]);
            const T *yp = (const T *)lm_bytes(k[4]);
            T *dg = (T *)lm_bytes(gg_out); T *dc_prev = (T *)lm_bytes(gc_out);
            for (int64_t r = 0; r < rows; r++) {
                const T *gr = gp + r * 4 * H;
                T *dgr = dg + r * 4 * H;
                for (int64_t j = 0; j < H; j++) {
                    int64_t e = r * H + j;
                    T i = (T)SIG(gr[j]), f = (T)SIG(gr[H + j]), gg = (T)LM_TANH(gr[2 * H + j]), o = (T)SIG(gr[3 * H + j]);
                    T tc = (T)LM_TANH(yp[e]);
                    T dc = dcy[e] + dh[e] * o * (1 - tc * tc);
                    dgr[j] = dc * gg * i * (1 - i);
                    dgr[H + j] = dc * cp[e] * f * (1 - f);
                    dgr[2 * H + j] = dc * i * (1 - gg * gg);
                    dgr[3 * H + j] = dh[e] * tc * o * (1 - o);
                    dc_prev[e] = dc * f;
                }
            })
    }
    for (int i = 0; i < 5; i++) if (k[i]) lm_release(k[i]);
    if (err) {
        if (gg_out) lm_release(gg_out);
        return -1;
    }
    out[0] = gg_out;
    out[1] = gc_out;
    return 0;
}
