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

/* What the threads need to run the recurrence, each for its parts' slices of the hidden units. Part
 * t owns hidden units j0..j1 of every gate: its columns of the recurrent weight, packed once and
 * small enough to stay in its core's cache for the whole sequence, and the gates, cells and outputs
 * of those units. The threads meet once per step, when each needs every unit's h (forward) or
 * every gate's gradient (backward) from the step before. */
typedef struct {
    int64_t T, B, H;
    bool reverse;
    int dt, parts;   /* parts: the units' split, fixed whatever the threads */
    const void *xp, *h0, *c0, *go, *gc, *cells, *gates, *b;
    const char *w;           /* w_hh (4H, H) */
    void *scratch_w, *scratch_g;   /* forward: each thread's rows of w_hh and gate rows */
    void *out, *cl, *g, *dG, *dh, *dc;
} lstm_job;

/* hidden units of thread t of n, on 16-unit boundaries where H allows */
static int64_t unit_lo(int64_t H, int t, int n) {
    int64_t q = H / 16 >= n ? 16 : 1;
    return t == n ? H : H / q * t / n * q;
}

static void step_barrier(void) {
#ifdef _OPENMP
    #pragma omp barrier
#endif
}

/* One step's gates for one batch row and n hidden units: gi holds the pre-activations (i, f, g,
 * o blocks si apart), ga receives the activations (blocks sa apart). Restrict-qualified so gcc
 * vectorises the transcendental functions (lm_expf/lm_tanhf are plain arithmetic for float). */
#define GATES_ROW(T_)                                                                                          \
    static void gates_row_##T_(int64_t n, const T_ *restrict gi, int64_t si, T_ *restrict ga, int64_t sa,     \
                               const T_ *restrict c, T_ *restrict co, T_ *restrict ho) {                       \
        for (int64_t j = 0; j < n; j++) {                                                                      \
            T_ i = (T_)SIG(gi[j]), f = (T_)SIG(gi[si + j]), gg = (T_)LM_TANH(gi[2 * si + j]);                  \
            T_ o = (T_)SIG(gi[3 * si + j]);                                                                    \
            T_ cn = f * c[j] + i * gg;                                                                         \
            ga[j] = i, ga[sa + j] = f, ga[2 * sa + j] = gg, ga[3 * sa + j] = o;                                \
            co[j] = cn;                                                                                        \
            ho[j] = o * (T_)LM_TANH(cn);                                                                       \
        }                                                                                                      \
    }

#define FORWARD(T_)                                                                                            \
    GATES_ROW(T_)                                                                                              \
    static void forward_##T_(const lstm_job *J, int t0, int team) {                                          \
        int64_t T = J->T, B = J->B, H = J->H, G = 4 * H;                                                       \
        int mine = (J->parts - t0 + team - 1) / team;                                                          \
        lm_packed_b wp[mine > 0 ? mine : 1];   /* each part's wt^T */                                         \
        for (int k = 0; k < mine; k++) {   /* wt (N x H): the part's rows of w_hh, gate after gate */         \
            int64_t j0 = unit_lo(H, t0 + k * team, J->parts), n = unit_lo(H, t0 + k * team + 1, J->parts) - j0; \
            T_ *wt = (T_ *)J->scratch_w + H * 4 * j0;                                                          \
            for (int64_t q = 0; q < 4; q++)                                                                    \
                memcpy(wt + q * n * H, (const T_ *)J->w + (q * H + j0) * H, sizeof(T_) * (size_t)(n * H));     \
            lm_gemm_pack_b(J->dt, H, 4 * n, (lm_mat){(const char *)wt, 1, H}, &wp[k]);                         \
        }                                                                                                      \
        const T_ *b = J->b, *h = J->h0, *c = J->c0;                                                            \
        for (int64_t s = 0; s < T; s++) {                                                                      \
            int64_t t = J->reverse ? T - 1 - s : s;                                                            \
            const T_ *x = (const T_ *)J->xp + t * B * G;                                                       \
            T_ *ga = (T_ *)J->g + t * B * G, *ho = (T_ *)J->out + t * B * H, *co = (T_ *)J->cl + t * B * H;    \
            for (int k = 0; k < mine; k++) {                                                                   \
                int64_t j0 = unit_lo(H, t0 + k * team, J->parts), n = unit_lo(H, t0 + k * team + 1, J->parts) - j0; \
                int64_t N = 4 * n;                                                                             \
                T_ *gb = (T_ *)J->scratch_g + B * 4 * j0;                                                      \
                for (int64_t r = 0; r < B; r++)                                                                \
                    for (int64_t q = 0; q < 4; q++)                                                            \
                        for (int64_t u = 0; u < n; u++)                                                        \
                            gb[r * N + q * n + u] = x[r * G + q * H + j0 + u] + (b ? b[q * H + j0 + u] : 0);   \
                lm_gemm_packed(B, (lm_mat){(const char *)h, H, 1}, &wp[k], (char *)gb, N, true);              \
                for (int64_t r = 0; r < B; r++)                                                                \
                    gates_row_##T_(n, gb + r * N, n, ga + r * G + j0, H, c + r * H + j0, co + r * H + j0,      \
                                   ho + r * H + j0);                                                           \
            }                                                                                                  \
            step_barrier();   /* every unit's h_t is written */                                                \
            h = ho, c = co;                                                                                    \
        }                                                                                                      \
        for (int k = 0; k < mine; k++) lm_gemm_packed_free(&wp[k]);                                            \
    }
FORWARD(float)
FORWARD(double)

/* thread t of a team of n runs parts t, t + n, ... of J->parts: the units' split (and so each
 * step's products, and their bits) does not depend on the threads the region gets */
static void forward_part(int t, int n, void *ctx) {
    const lstm_job *J = ctx;
    if (J->dt == LM_FLOAT32) forward_float(J, t, n);
    else forward_double(J, t, n);
}

/* Threads for the recurrence: each step's product must repay a meeting of the threads */
static int recurrence_threads(int64_t B, int64_t H) {
    int nt = lm_get_num_threads();
    if (nt > H / 16) nt = H / 16 > 0 ? (int)(H / 16) : 1;
    return B * H * H * 4 < ((int64_t)1 << 20) ? 1 : nt;
}

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
        size_t item = lm_itemsize(dt);
        void *sw = malloc(item * (size_t)(4 * H * H)), *sg = malloc(item * (size_t)(4 * B * H));
        if (!sw || !sg) {
            free(sw), free(sg);
            lm_release(o), lm_release(cl), lm_release(g);
            release_all(k, 5);
            return lm_set_error(LM_ERR_MEMORY, "_lstm_layer: out of memory");
        }
        lstm_job J = {.T = T, .B = B, .H = H, .reverse = reverse, .dt = dt, .xp = lm_bytes(k[0]),
                      .h0 = lm_bytes(k[1]), .c0 = lm_bytes(k[2]), .w = lm_bytes(k[3]),
                      .b = k[4] ? lm_bytes(k[4]) : NULL, .scratch_w = sw, .scratch_g = sg, .out = lm_bytes(o),
                      .cl = lm_bytes(cl), .g = lm_bytes(g)};
        J.parts = recurrence_threads(B, H);
        lm_gemm_gang(J.parts, true, forward_part, &J);
        free(sw), free(sg);
    }
    release_all(k, 5);
    out[0] = o;
    out[1] = cl;
    out[2] = g;
    return 0;
}

/* One step's gate gradients for one batch row and n hidden units; g and d hold blocks of H.
 * dh and dc arrive with the output's and cells' own gradients of this step added. */
#define DGATES_ROW(T_)                                                                                         \
    static void dgates_row_##T_(int64_t n, int64_t H, const T_ *restrict g, const T_ *restrict cn,            \
                                const T_ *restrict cp, const T_ *restrict dh, T_ *restrict dc,                 \
                                T_ *restrict d) {                                                              \
        for (int64_t j = 0; j < n; j++) {                                                                      \
            T_ i = g[j], f = g[H + j], gg = g[2 * H + j], o = g[3 * H + j];                                    \
            T_ tc = (T_)LM_TANH(cn[j]);                                                                        \
            T_ h_ = dh[j];                                                                                     \
            T_ c_ = dc[j] + h_ * o * (1 - tc * tc);                                                            \
            d[j] = c_ * gg * i * (1 - i);                                                                      \
            d[H + j] = c_ * cp[j] * f * (1 - f);                                                               \
            d[2 * H + j] = c_ * i * (1 - gg * gg);                                                             \
            d[3 * H + j] = h_ * tc * o * (1 - o);                                                              \
            dc[j] = c_ * f;                                                                                    \
        }                                                                                                      \
    }

/* dG (T, B, 4H): the pre-activation gates' gradients; dh, dc (B, H) carry the recurrence and
 * end as h0's and c0's gradients. go/gc: output's and cells' incoming gradients or NULL.
 * This thread's units j0..j1: their gate gradients, then (after the meeting) their columns of
 * dh = dG_t @ w_hh, which read every unit's gate gradients. */
#define BACKWARD(T_)                                                                                           \
    DGATES_ROW(T_)                                                                                             \
    static void backward_##T_(const lstm_job *J, int t0, int team) {                                         \
        int64_t T = J->T, B = J->B, H = J->H, G = 4 * H;                                                       \
        int mine = (J->parts - t0 + team - 1) / team;                                                          \
        lm_packed_b wp[mine > 0 ? mine : 1];   /* each part's w_hh[:, j0:j1] */                               \
        T_ *dh = J->dh, *dc = J->dc;                                                                           \
        const T_ *go = J->go, *gc = J->gc;                                                                     \
        for (int k = 0; k < mine; k++) {                                                                       \
            int64_t j0 = unit_lo(H, t0 + k * team, J->parts), j1 = unit_lo(H, t0 + k * team + 1, J->parts);   \
            lm_gemm_pack_b(J->dt, G, j1 - j0, (lm_mat){(const char *)((const T_ *)J->w + j0), H, 1}, &wp[k]);  \
            for (int64_t r = 0; r < B; r++)                                                                    \
                for (int64_t u = j0; u < j1; u++) dh[r * H + u] = dc[r * H + u] = 0;                           \
        }                                                                                                      \
        for (int64_t s = T - 1; s >= 0; s--) {                                                                 \
            int64_t t = J->reverse ? T - 1 - s : s, prev = J->reverse ? t + 1 : t - 1;                         \
            const T_ *g = (const T_ *)J->gates + t * B * G, *cn = (const T_ *)J->cells + t * B * H;            \
            const T_ *cp = s == 0 ? (const T_ *)J->c0 : (const T_ *)J->cells + prev * B * H;                   \
            T_ *d = (T_ *)J->dG + t * B * G;                                                                   \
            for (int k = 0; k < mine; k++) {                                                                   \
                int64_t j0 = unit_lo(H, t0 + k * team, J->parts), n = unit_lo(H, t0 + k * team + 1, J->parts) - j0; \
                for (int64_t r = 0; r < B; r++) {                                                              \
                    int64_t e = (t * B + r) * H + j0, o = r * H + j0;                                          \
                    if (go) for (int64_t u = 0; u < n; u++) dh[o + u] += go[e + u];                            \
                    if (gc) for (int64_t u = 0; u < n; u++) dc[o + u] += gc[e + u];                            \
                    dgates_row_##T_(n, H, g + r * G + j0, cn + o, cp + o, dh + o, dc + o, d + r * G + j0);     \
                }                                                                                              \
            }                                                                                                  \
            step_barrier();   /* every gate's gradient of step t is written */                                 \
            for (int k = 0; k < mine; k++) {                                                                   \
                int64_t j0 = unit_lo(H, t0 + k * team, J->parts);                                              \
                lm_gemm_packed(B, (lm_mat){(const char *)d, G, 1}, &wp[k], (char *)(dh + j0), H, false);      \
            }                                                                                                  \
        }                                                                                                      \
        for (int k = 0; k < mine; k++) lm_gemm_packed_free(&wp[k]);                                            \
    }
BACKWARD(float)
BACKWARD(double)

static void backward_part(int t, int n, void *ctx) {
    const lstm_job *J = ctx;
    if (J->dt == LM_FLOAT32) backward_float(J, t, n);
    else backward_double(J, t, n);
}

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
    } else {
        lstm_job J = {.T = T, .B = B, .H = H, .reverse = reverse, .dt = dt, .go = k[0] ? lm_bytes(k[0]) : NULL,
                      .gc = k[1] ? lm_bytes(k[1]) : NULL, .c0 = lm_bytes(k[3]), .w = lm_bytes(k[4]),
                      .cells = lm_bytes(k[6]), .gates = lm_bytes(k[7]), .dG = dG, .dh = lm_bytes(res[1]),
                      .dc = lm_bytes(res[2])};
        J.parts = recurrence_threads(B, H);
        lm_gemm_gang(J.parts, false, backward_part, &J);
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
