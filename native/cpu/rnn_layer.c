/* One LSTM layer in one direction over a whole sequence, forward and backward, in C.
 *
 * nn.LSTM projects the whole input at once (one GEMM); what remains per time step is the
 * recurrent product h @ w_hh^T and the gates. Run step by step through Python, each step costs
 * four op calls and autograd nodes, and the backward computes w_hh's gradient as T small GEMMs
 * (K = batch). Here the forward keeps every step's activated gates and cell state, and the
 * backward runs only the recurrence for dh per step, then w_hh's and b_hh's gradients as one
 * GEMM (K = T * batch) and one column sum over all steps, as cuDNN and oneDNN do.
 *
 * Shapes: x_proj (T, B, 4H) = x @ w_ih^T + b_ih, gates ordered i, f, g, o as PyTorch's;
 * h0, c0 (B, H); w_hh (4H, H); b_hh (4H) or none. Outputs: output (T, B, H) every h_t,
 * cells (T, B, H) every c_t, gates (T, B, 4H) the activated gates (what the backward reads). */
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "alloc.h"
#include "gemm.h"
#include "kernels/common.h"

#define SIG(x) (1 / (1 + LM_EXP(-(x))))

/* x_proj (or the backward's gates, named `first`) sets T, B and H; the rest must agree */
static int check(const char *first, lm_tensor *x_proj, lm_tensor *h0, lm_tensor *c0, lm_tensor *w_hh,
                 lm_tensor *b_hh, int64_t *T, int64_t *B, int64_t *H) {
    if (x_proj->ndim != 3)
        return lm_set_error(LM_ERR_VALUE, "%s must be 3-D (seq, batch, 4*hidden), got %dD", first, x_proj->ndim);
    *T = x_proj->shape[0];
    *B = x_proj->shape[1];
    *H = x_proj->shape[2] / 4;
    if (x_proj->shape[2] != 4 * *H)
        return lm_set_error(LM_ERR_VALUE, "%s's last dim %lld is not 4 * hidden", first, (long long)x_proj->shape[2]);
    lm_tensor *st[2] = {h0, c0};
    for (int i = 0; i < 2; i++)
        if (st[i]->ndim != 2 || st[i]->shape[0] != *B || st[i]->shape[1] != *H)
            return lm_set_error(LM_ERR_VALUE, "%s must have shape (%lld, %lld)", i ? "c0" : "h0", (long long)*B,
                                (long long)*H);
    if (w_hh->ndim != 2 || w_hh->shape[0] != 4 * *H || w_hh->shape[1] != *H)
        return lm_set_error(LM_ERR_VALUE, "w_hh must have shape (%lld, %lld)", (long long)(4 * *H), (long long)*H);
    if (b_hh && (b_hh->ndim != 1 || b_hh->shape[0] != 4 * *H))
        return lm_set_error(LM_ERR_VALUE, "b_hh must have shape (%lld,)", (long long)(4 * *H));
    lm_tensor *all[5] = {x_proj, h0, c0, w_hh, b_hh};
    for (int i = 1; i < 5; i++)
        if (all[i] && all[i]->dtype != x_proj->dtype)
            return lm_set_error(LM_ERR_TYPE, "expected every tensor to have %s's dtype %s, got %s", first,
                                lm_dtype_name(x_proj->dtype), lm_dtype_name(all[i]->dtype));
    return 0;
}

/* contiguous copies (or the tensors themselves, retained) of n tensors; NULL entries stay NULL */
static int contiguous_all(lm_tensor **in, lm_tensor **out, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = in[i] ? lm_contiguous(in[i]) : NULL;
        if (in[i] && !out[i]) {
            while (i-- > 0) if (out[i]) lm_release(out[i]);
            return -1;
        }
    }
    return 0;
}

static void release_all(lm_tensor **t, int n) {
    for (int i = 0; i < n; i++) if (t[i]) lm_release(t[i]);
}

#define FORWARD(T_)                                                                                            \
    static void forward_##T_(int64_t T, int64_t B, int64_t H, bool reverse, const T_ *xp, const T_ *h0,        \
                             const T_ *c0, const char *w, const T_ *b, T_ *out, T_ *cells, T_ *gates, int dt) { \
        lm_mat wt = {w, 1, H};   /* w_hh^T: H x 4H */                                                          \
        const T_ *h = h0, *c = c0;                                                                             \
        for (int64_t s = 0; s < T; s++) {                                                                      \
            int64_t t = reverse ? T - 1 - s : s;                                                               \
            T_ *g = gates + t * B * 4 * H;                                                                     \
            const T_ *x = xp + t * B * 4 * H;                                                                  \
            for (int64_t r = 0; r < B; r++)                                                                    \
                for (int64_t j = 0; j < 4 * H; j++) g[r * 4 * H + j] = x[r * 4 * H + j] + (b ? b[j] : 0);      \
            lm_gemm(dt, B, 4 * H, H, (lm_mat){(const char *)h, H, 1}, wt, (char *)g, 4 * H, true);             \
            T_ *ho = out + t * B * H, *co = cells + t * B * H;                                                 \
            for (int64_t r = 0; r < B; r++) {                                                                  \
                T_ *gr = g + r * 4 * H;                                                                        \
                for (int64_t j = 0; j < H; j++) {                                                              \
                    T_ i = (T_)SIG(gr[j]), f = (T_)SIG(gr[H + j]), gg = (T_)LM_TANH(gr[2 * H + j]);            \
                    T_ o = (T_)SIG(gr[3 * H + j]);                                                             \
                    T_ cn = f * c[r * H + j] + i * gg;                                                         \
                    gr[j] = i, gr[H + j] = f, gr[2 * H + j] = gg, gr[3 * H + j] = o;                           \
                    co[r * H + j] = cn;                                                                        \
                    ho[r * H + j] = o * (T_)LM_TANH(cn);                                                       \
                }                                                                                              \
            }                                                                                                  \
            h = ho, c = co;                                                                                    \
        }                                                                                                      \
    }
FORWARD(float)
FORWARD(double)

int lm_cpu__lstm_layer(lm_tensor *x_proj, lm_tensor *h0, lm_tensor *c0, lm_tensor *w_hh, lm_tensor *b_hh,
                       bool reverse, lm_tensor **out) {
    int64_t T, B, H;
    if (check("x_proj", x_proj, h0, c0, w_hh, b_hh, &T, &B, &H)) return -1;
    int dt = x_proj->dtype;
    if (dt != LM_FLOAT32 && dt != LM_FLOAT64)
        return lm_set_error(LM_ERR_TYPE, "_lstm_layer: not implemented for '%s'", lm_dtype_name(dt));
    lm_tensor *in[5] = {x_proj, h0, c0, w_hh, b_hh}, *k[5];
    if (contiguous_all(in, k, 5)) return -1;
    int64_t sh[3] = {T, B, H}, shg[3] = {T, B, 4 * H};
    lm_tensor *o = lm_empty(3, sh, dt, LM_CPU), *cl = o ? lm_empty(3, sh, dt, LM_CPU) : NULL;
    lm_tensor *g = cl ? lm_empty(3, shg, dt, LM_CPU) : NULL;
    if (!g) {
        if (o) lm_release(o);
        if (cl) lm_release(cl);
        release_all(k, 5);
        return -1;
    }
    if (T > 0 && B > 0 && H > 0) {
        void *gil = lm_gil_release();
        if (dt == LM_FLOAT32)
            forward_float(T, B, H, reverse, lm_bytes(k[0]), lm_bytes(k[1]), lm_bytes(k[2]), lm_bytes(k[3]),
                          k[4] ? lm_bytes(k[4]) : NULL, lm_bytes(o), lm_bytes(cl), lm_bytes(g), dt);
        else
            forward_double(T, B, H, reverse, lm_bytes(k[0]), lm_bytes(k[1]), lm_bytes(k[2]), lm_bytes(k[3]),
                           k[4] ? lm_bytes(k[4]) : NULL, lm_bytes(o), lm_bytes(cl), lm_bytes(g), dt);
        lm_gil_reacquire(gil);
    }
    release_all(k, 5);
    out[0] = o;
    out[1] = cl;
    out[2] = g;
    return 0;
}

/* dG (T, B, 4H): the pre-activation gates' gradients; dh, dc (B, H) carry the recurrence and
 * end as h0's and c0's gradients. go/gc: output's and cells' incoming gradients or NULL. */
#define BACKWARD(T_)                                                                                           \
    static void backward_##T_(int64_t T, int64_t B, int64_t H, bool reverse, const T_ *go, const T_ *gc,      \
                              const T_ *c0, const char *w, const T_ *cells, const T_ *gates, T_ *dG, T_ *dh,   \
                              T_ *dc, int dt) {                                                                \
        lm_mat wm = {w, H, 1};   /* w_hh: 4H x H */                                                            \
        memset(dh, 0, sizeof(T_) * (size_t)(B * H));                                                           \
        memset(dc, 0, sizeof(T_) * (size_t)(B * H));                                                           \
        for (int64_t s = T - 1; s >= 0; s--) {                                                                 \
            int64_t t = reverse ? T - 1 - s : s, prev = reverse ? t + 1 : t - 1;                              \
            const T_ *g = gates + t * B * 4 * H, *cn = cells + t * B * H;                                      \
            const T_ *cp = s == 0 ? c0 : cells + prev * B * H;                                                 \
            T_ *d = dG + t * B * 4 * H;                                                                        \
            for (int64_t r = 0; r < B; r++) {                                                                  \
                const T_ *gr = g + r * 4 * H;                                                                  \
                T_ *dr = d + r * 4 * H;                                                                        \
                for (int64_t j = 0; j < H; j++) {                                                              \
                    int64_t e = r * H + j;                                                                     \
                    T_ i = gr[j], f = gr[H + j], gg = gr[2 * H + j], o = gr[3 * H + j];                       \
                    T_ tc = (T_)LM_TANH(cn[e]);                                                                \
                    T_ h_ = dh[e] + (go ? go[t * B * H + e] : 0);                                              \
                    T_ c_ = dc[e] + (gc ? gc[t * B * H + e] : 0) + h_ * o * (1 - tc * tc);                     \
                    dr[j] = c_ * gg * i * (1 - i);                                                             \
                    dr[H + j] = c_ * cp[e] * f * (1 - f);                                                      \
                    dr[2 * H + j] = c_ * i * (1 - gg * gg);                                                    \
                    dr[3 * H + j] = h_ * tc * o * (1 - o);                                                     \
                    dc[e] = c_ * f;                                                                            \
                }                                                                                              \
            }                                                                                                  \
            lm_gemm(dt, B, H, 4 * H, (lm_mat){(const char *)d, 4 * H, 1}, wm, (char *)dh, H, false);          \
        }                                                                                                      \
    }
BACKWARD(float)
BACKWARD(double)

int lm_cpu__lstm_layer_backward(lm_tensor *grad_output, lm_tensor *grad_cells, lm_tensor *h0, lm_tensor *c0,
                                lm_tensor *w_hh, lm_tensor *output, lm_tensor *cells, lm_tensor *gates,
                                bool reverse, lm_tensor **out) {
    int64_t T, B, H;
    if (check("gates", gates, h0, c0, w_hh, NULL, &T, &B, &H)) return -1;
    int dt = gates->dtype;
    if (dt != LM_FLOAT32 && dt != LM_FLOAT64)
        return lm_set_error(LM_ERR_TYPE, "_lstm_layer_backward: not implemented for '%s'", lm_dtype_name(dt));
    lm_tensor *seq[4] = {grad_output, grad_cells, output, cells};
    for (int i = 0; i < 4; i++)
        if (seq[i] && (seq[i]->ndim != 3 || seq[i]->shape[0] != T || seq[i]->shape[1] != B ||
                       seq[i]->shape[2] != H || seq[i]->dtype != dt))
            return lm_set_error(LM_ERR_VALUE, "grad_output, grad_cells, output and cells must be (%lld, %lld, %lld) "
                                "tensors of dtype %s", (long long)T, (long long)B, (long long)H, lm_dtype_name(dt));
    lm_tensor *in[7] = {grad_output, grad_cells, h0, c0, w_hh, output, cells}, *k[8];
    if (contiguous_all(in, k, 7)) return -1;
    k[7] = lm_contiguous(gates);
    if (!k[7]) { release_all(k, 7); return -1; }
    int64_t shg[3] = {T, B, 4 * H}, shs[2] = {B, H}, shw[2] = {4 * H, H}, shb[1] = {4 * H};
    lm_tensor *res[5] = {lm_empty(3, shg, dt, LM_CPU), lm_empty(2, shs, dt, LM_CPU), lm_empty(2, shs, dt, LM_CPU),
                         lm_empty(2, shw, dt, LM_CPU), lm_empty(1, shb, dt, LM_CPU)};
    for (int i = 0; i < 5; i++)
        if (!res[i]) { release_all(res, 5); release_all(k, 8); return -1; }
    double *acc = malloc(sizeof(double) * (size_t)(4 * H > 0 ? 4 * H : 1));   /* db in double */
    if (!acc) {
        release_all(res, 5);
        release_all(k, 8);
        return lm_set_error(LM_ERR_MEMORY, "_lstm_layer_backward: out of memory");
    }
    size_t item = lm_itemsize(dt);
    char *dG = lm_bytes(res[0]), *dW = lm_bytes(res[3]), *db = lm_bytes(res[4]);
    void *gil = lm_gil_release();
    if (T == 0 || B == 0 || H == 0) {
        memset(lm_bytes(res[1]), 0, item * (size_t)(B * H));
        memset(lm_bytes(res[2]), 0, item * (size_t)(B * H));
    } else if (dt == LM_FLOAT32) {
        backward_float(T, B, H, reverse, k[0] ? lm_bytes(k[0]) : NULL, k[1] ? lm_bytes(k[1]) : NULL,
                       lm_bytes(k[3]), lm_bytes(k[4]), lm_bytes(k[6]), lm_bytes(k[7]), (float *)dG,
                       lm_bytes(res[1]), lm_bytes(res[2]), dt);
    } else {
        backward_double(T, B, H, reverse, k[0] ? lm_bytes(k[0]) : NULL, k[1] ? lm_bytes(k[1]) : NULL,
                        lm_bytes(k[3]), lm_bytes(k[4]), lm_bytes(k[6]), lm_bytes(k[7]), (double *)dG,
                        lm_bytes(res[1]), lm_bytes(res[2]), dt);
    }
    /* dW = sum_t dG_t^T @ h_prev(t): the steps whose h_prev is an output row in one GEMM, the
     * first step's (h0) in a second; db = dG summed over every step and batch row */
    memset(dW, 0, item * (size_t)(4 * H * H));
    if (T > 0 && B > 0 && H > 0) {
        int64_t R = (T - 1) * B, G = 4 * H;
        const char *out_rows = lm_bytes(k[5]);
        const char *dg_rows = dG + (reverse ? 0 : B * G) * (int64_t)item;
        const char *h_rows = out_rows + (reverse ? B * H : 0) * (int64_t)item;
        if (R > 0) lm_gemm(dt, G, H, R, (lm_mat){dg_rows, 1, G}, (lm_mat){h_rows, H, 1}, dW, H, true);
        const char *dg_first = dG + (reverse ? (T - 1) * B * G : 0) * (int64_t)item;
        lm_gemm(dt, G, H, B, (lm_mat){dg_first, 1, G}, (lm_mat){lm_bytes(k[2]), H, 1}, dW, H, true);
    }
    for (int64_t j = 0; j < 4 * H; j++) acc[j] = 0;
    if (dt == LM_FLOAT32) {
        const float *d = (const float *)dG;
        for (int64_t r = 0; r < T * B; r++) for (int64_t j = 0; j < 4 * H; j++) acc[j] += d[r * 4 * H + j];
        for (int64_t j = 0; j < 4 * H; j++) ((float *)db)[j] = (float)acc[j];
    } else {
        const double *d = (const double *)dG;
        for (int64_t r = 0; r < T * B; r++) for (int64_t j = 0; j < 4 * H; j++) acc[j] += d[r * 4 * H + j];
        memcpy(db, acc, sizeof(double) * (size_t)(4 * H));
    }
    lm_gil_reacquire(gil);
    free(acc);
    release_all(k, 8);
    for (int i = 0; i < 5; i++) out[i] = res[i];
    return 0;
}
