/* Each thread takes a contiguous slice of the batch and runs im2col, its own
 * single-threaded GEMMs and the copies between the GEMM's layout and NCHW on
 * it: one OpenMP region per call. Threading the GEMMs inside OpenBLAS instead
 * left its pool spinning while ours copied, on the same two cores; conv2d at
 * the digits CNN's shapes took about three times its GEMM time that way. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "conv_run.h"
#include "conv_winograd.h"
#include "gemm.h"
#include "iter.h"

typedef struct {
    lm_conv_kind kind;
    const lm_conv_geom *G;
    int dt;
    int64_t item, nbmax;
    const char *a, *b, *bias;
    int64_t bias_stride;
    char *out;
    lm_conv_plan plan;
    bool last;        /* plan LAST: columns transposed, weight (b) permuted to (O, kh, kw, Cg) */
    bool inner_par;   /* a single thread: im2col and col2im may split channels instead */
    bool fused;       /* LAST columns packed straight from channels-last copies (lm_gemm_packing_b) */
    int64_t band;     /* > 0: one sample's columns built and multiplied this many output rows at a time */
} job;

typedef struct { char *col, *tmp, *buf, *dw; } scratch;

#define MOVES(T)                                                                                                  \
    /* the GEMM's (Og x nb*L) rows -> out[n0:n0+nb, group g], plus the bias */                                    \
    static void to_nchw_##T(const job *J, const T *tmp, int64_t n0, int64_t nb, int64_t g) {                     \
        const lm_conv_geom *G = J->G;                                                                             \
        for (int64_t o = 0; o < G->Og; o++) {                                                                     \
            T bv = J->bias ? ((const T *)J->bias)[(g * G->Og + o) * J->bias_stride] : (T)0;                       \
            for (int64_t n = 0; n < nb; n++) {                                                                    \
                const T *t = tmp + (o * nb + n) * G->L;                                                           \
                T *y = (T *)J->out + ((n0 + n) * G->O + g * G->Og + o) * G->L;                                   \
                for (int64_t l = 0; l < G->L; l++) y[l] = t[l] + bv;                                              \
            }                                                                                                     \
        }                                                                                                         \
    }                                                                                                             \
    static void add_bias_##T(const job *J, T *y, int64_t g) {                                                     \
        const lm_conv_geom *G = J->G;                                                                             \
        for (int64_t o = 0; o < G->Og; o++) {                                                                     \
            T bv = ((const T *)J->bias)[(g * G->Og + o) * J->bias_stride];                                        \
            for (int64_t l = 0; l < G->L; l++) y[o * G->L + l] += bv;                                             \
        }                                                                                                         \
    }
MOVES(float)
MOVES(double)

static void to_nchw(const job *J, const char *tmp, int64_t n0, int64_t nb, int64_t g) {
    if (J->dt == LM_FLOAT32) to_nchw_float(J, (const float *)tmp, n0, nb, g);
    else to_nchw_double(J, (const double *)tmp, n0, nb, g);
}

static void add_bias(const job *J, char *y, int64_t g) {
    if (J->dt == LM_FLOAT32) add_bias_float(J, (float *)y, g);
    else add_bias_double(J, (double *)y, g);
}

/* grad[n0:n0+nb, group g] as an (Og x nb*L) matrix: in place for one sample, else gathered into tmp */
static lm_mat grad_rows(const job *J, const scratch *S, int64_t n0, int64_t nb, int64_t g) {
    const lm_conv_geom *G = J->G;
    int64_t row = G->L * J->item;
    if (nb == 1) return (lm_mat){J->a + (n0 * G->O + g * G->Og) * row, G->L, 1};
    for (int64_t o = 0; o < G->Og; o++)
        for (int64_t n = 0; n < nb; n++)
            memcpy(S->tmp + (o * nb + n) * row, J->a + ((n0 + n) * G->O + g * G->Og + o) * row, (size_t)row);
    return (lm_mat){S->tmp, nb * G->L, 1};
}

/* Backward-weight for one sample in bands of output rows, so that each band's
 * columns stay in L2 between im2col writing them and the GEMM reading them: a
 * whole 32x32 image's (576 x 1024 floats, 2.4 MB) went out to memory and back,
 * and 19 ms became 15 at 32x64x32x32. The forward product gained nothing so. */
static void banded(const job *J, const scratch *S, int64_t n, int64_t g, bool acc) {
    const lm_conv_geom *G = J->G;
    int64_t item = J->item, Og = G->Og, K = G->K, L = G->L;
    for (int64_t oh0 = 0; oh0 < G->OH; oh0 += J->band) {
        int64_t oh1 = oh0 + J->band < G->OH ? oh0 + J->band : G->OH, w = (oh1 - oh0) * G->OW;
        lm_im2col_band(J->dt, G, J->b, n, g, oh0, oh1, S->col);
        /* dW_g += grad band (Og x w) @ cols^T (w x K) */
        lm_mat gy = {J->a + ((n * G->O + g * Og) * L + oh0 * G->OW) * item, L, 1};
        lm_gemm(J->dt, Og, K, w, gy, (lm_mat){S->col, 1, w}, S->dw + g * Og * K * item, K, acc || oh0 > 0);
    }
}

/* C (M x N) = or += A @ the columns of x[n0:n0+nb, group g], packed by `pack` from channels-last
 * copies in the column buffer: false (nothing done) unless the job takes that path */
static bool fused(const job *J, const scratch *S, const char *x, int64_t n0, int64_t nb, int64_t g, int64_t M,
                  int64_t N, int64_t K, lm_mat a, lm_pack_b_fn pack, char *c, int64_t ldc, bool acc) {
    if (!J->fused) return false;
    lm_cols_last_copies(J->dt, J->G, x, n0, nb, g, S->col);
    lm_cols_packer P = {J->dt, J->G, J->plan.table, S->col};
    return lm_gemm_packing_b(J->dt, M, N, K, a, pack, &P, c, ldc, acc);
}

static void slice(const job *J, const scratch *S, int64_t lo, int64_t hi) {
    const lm_conv_geom *G = J->G;
    int64_t item = J->item, Og = G->Og, K = G->K, L = G->L;
    for (int64_t n0 = lo; n0 < hi; n0 += J->nbmax) {
        int64_t nb = hi - n0 < J->nbmax ? hi - n0 : J->nbmax, cols = nb * L;
        /* the columns as the (K x cols) matrix of the product, whichever way they are stored */
        lm_mat col = J->last ? (lm_mat){S->col, 1, K} : (lm_mat){S->col, cols, 1};
        for (int64_t g = 0; g < G->g; g++) {
            const char *wg = J->b + g * Og * K * item;
            if (J->band) {
                banded(J, S, n0, g, n0 != lo);
                continue;
            }
            if (J->kind == LM_CONV_FORWARD) {
                /* one sample's group block is already the (Og x L) product */
                char *y = nb == 1 ? J->out + (n0 * G->O + g * Og) * L * item : S->tmp;
                lm_mat w = {wg, K, 1};
                if (!fused(J, S, J->a, n0, nb, g, Og, cols, K, w, lm_cols_pack_cols, y, cols, false)) {
                    lm_im2col(J->dt, G, &J->plan, J->a, n0, nb, g, S->col, S->buf, J->inner_par);
                    lm_gemm(J->dt, Og, cols, K, w, col, y, cols, false);
                }
                if (nb > 1) to_nchw(J, S->tmp, n0, nb, g);
                else if (J->bias) add_bias(J, y, g);
            } else if (J->kind == LM_CONV_BACKWARD_INPUT) {
                lm_mat gy = grad_rows(J, S, n0, nb, g);
                if (J->last) {   /* col^T (cols x K) = grad_g^T @ W_g */
                    lm_mat gyt = {gy.p, gy.cs, gy.rs}, w = {wg, K, 1};
                    lm_gemm(J->dt, cols, K, Og, gyt, w, S->col, K, false);
                } else {         /* col (K x cols) = W_g^T @ grad_g */
                    lm_mat wt = {wg, 1, K};
                    lm_gemm(J->dt, K, cols, Og, wt, gy, S->col, cols, false);
                }
                lm_col2im(J->dt, G, &J->plan, S->col, n0, nb, g, J->out, S->buf, J->inner_par);
            } else {
                lm_mat gy = grad_rows(J, S, n0, nb, g);
                char *dw = S->dw + g * Og * K * item;
                if (!fused(J, S, J->b, n0, nb, g, Og, K, cols, gy, lm_cols_pack_rows, dw, K, n0 != lo)) {
                    lm_im2col(J->dt, G, &J->plan, J->b, n0, nb, g, S->col, S->buf, J->inner_par);
                    lm_mat colt = {col.p, col.cs, col.rs};   /* cols x K */
                    lm_gemm(J->dt, Og, K, cols, gy, colt, dw, K, n0 != lo);
                }
            }
        }
    }
}

/* (O, Cg, kh, kw) <-> (O, kh, kw, Cg) for output channels lo..hi: the weight in the LAST plan's tap
 * order, and its gradient back; each output channel's block is a (Cg x taps) transpose */
static void permute_weight(const lm_conv_geom *G, int64_t item, const char *src, char *dst, bool to_last, int64_t lo,
                           int64_t hi) {
    int64_t taps = G->kh * G->kw, rows = to_last ? G->Cg : taps, cols = to_last ? taps : G->Cg, blk = G->Cg * taps * item;
    for (int64_t o = lo; o < hi; o++) lm_cols_transpose(item, rows, cols, src + o * blk, cols, dst + o * blk, rows);
}

/* The weight's passes around the batch split, themselves split over output channels: its permutation
 * into the LAST order before, or after it the threads' partial gradients summed (in a fixed order)
 * and permuted back. The permutation alone took 0.15-0.2 ms of 2 MB of weight at 256x128x4x4, on one
 * thread while the other waited. */
typedef struct {
    const lm_conv_geom *G;
    int dt;
    int nparts;          /* partial sums: parts[u * per] for u = 1..nparts-1 are added into src */
    const char *parts;
    size_t per;
    const char *src;
    char *dst;           /* NULL: no permutation */
    bool to_last;
} weight_pass;

static void weight_part(int t, int n, void *ctx) {
    const weight_pass *P = ctx;
    const lm_conv_geom *G = P->G;
    int64_t item = (int64_t)lm_itemsize(P->dt), lo = G->O * t / n, hi = G->O * (t + 1) / n;
    for (int u = 1; u < P->nparts; u++) {
        const char *p = P->parts + P->per * (size_t)u;
        if (P->dt == LM_FLOAT32)
            for (int64_t i = lo * G->K; i < hi * G->K; i++) ((float *)P->src)[i] += ((const float *)p)[i];
        else
            for (int64_t i = lo * G->K; i < hi * G->K; i++) ((double *)P->src)[i] += ((const double *)p)[i];
    }
    if (P->dst) permute_weight(G, item, P->src, P->dst, P->to_last, lo, hi);
}

/* Threads worth using: the batch is the only thing split, and a region costs a few us */
static int threads_for(const lm_conv_geom *G) {
    int nt = lm_get_num_threads();
    if (nt < 2 || G->N < 2 || !lm_should_parallelize(G->N * G->L * G->K * G->O / 4)) return 1;
    return G->N < nt ? (int)G->N : nt;
}

/* Samples per GEMM: one when an image alone makes a wide GEMM (written straight
 * into the tensor), else enough to keep each thread's column buffer near 16 MB / nt. */
static int64_t chunk(const lm_conv_geom *G, int64_t item, int nt) {
    if (G->L >= 256) return 1;
    int64_t per = G->K * G->L * item, most = (G->N + nt - 1) / nt;
    int64_t n = per ? (((int64_t)16 << 20) / nt) / per : most;
    return n < 1 ? 1 : (n > most ? most : n);
}

#define BAND_BYTES ((int64_t)512 << 10)   /* half a 1 MB L2: room for the GEMM's packed blocks */

/* Output rows per band: the columns of a band near BAND_BYTES; 0 (no bands) unless one
 * sample's ROWS columns would not fit that and the band is still a wide product. */
static int64_t band_rows(const job *J, lm_conv_kind kind) {
    const lm_conv_geom *G = J->G;
    int64_t bytes = BAND_BYTES;
    if (kind != LM_CONV_BACKWARD_WEIGHT || J->nbmax != 1 || J->plan.mode != LM_COLS_ROWS || J->inner_par) return 0;
    int64_t per_row = G->K * G->OW * J->item, rows = bytes / (per_row ? per_row : 1);
    if (rows < 1) rows = 1;
    if (rows >= G->OH || rows * G->OW < 64) return 0;
    return rows;
}

static size_t up(size_t n) { return (n + 63) & ~(size_t)63; }

/* thread t's slice of the batch, with its scratch */
typedef struct { const job *J; char *base; size_t per, col, tmp, buf; char *out; } run_ctx;

static void run_part(int t, int n, void *ctx) {
    const run_ctx *R = ctx;
    const job *J = R->J;
    char *m = R->base + R->per * (size_t)t;
    scratch S = {m, m + R->col, m + R->col + R->tmp, t == 0 && !J->last ? R->out : m + R->col + R->tmp + R->buf};
    slice(J, &S, J->G->N * t / n, J->G->N * (t + 1) / n);
}

int lm_conv_run(lm_conv_kind kind, const lm_conv_geom *G, int dt, const char *a, const char *b, const char *bias,
                int64_t bias_stride, char *out) {
    int64_t item = (int64_t)lm_itemsize(dt);
    size_t dw_bytes = (size_t)(G->O * G->K * item);
    if (G->N == 0) {
        if (kind == LM_CONV_BACKWARD_WEIGHT) memset(out, 0, dw_bytes);
        return 0;
    }
    if (lm_winograd_applies(kind, G, dt))
        return lm_winograd_run(kind, G, (const float *)a, (const float *)b, (const float *)bias, bias_stride,
                               (float *)out);
    int nt = threads_for(G);
    job J = {kind, G, dt, item, chunk(G, item, nt), a, b, bias, bias_stride, out, {0, NULL}, false, false, false, 0};
    lm_conv_plan_init(&J.plan, G);
    J.last = J.plan.mode == LM_COLS_LAST;
    J.inner_par = nt == 1 && lm_should_parallelize(G->K * J.nbmax * G->L);
    J.band = band_rows(&J, kind);
    /* on the calling thread only, where lm_gemm would have been too: a split batch, or one thread;
     * the copies must fit the column buffer, and the host have the GEMM's own kernels */
    J.fused = J.last && !J.band && kind != LM_CONV_BACKWARD_INPUT && (nt > 1 || lm_get_num_threads() == 1) &&
              G->H * G->W + 1 <= G->kh * G->kw * G->L &&
              lm_gemm_packing_b(dt, 0, 0, 0, (lm_mat){NULL, 0, 0}, NULL, NULL, NULL, 0, false);
    int64_t ncols = J.band ? J.band * G->OW : J.nbmax * G->L;
    size_t col = up((size_t)(G->K * ncols * item)), tmp = J.nbmax > 1 ? up((size_t)(G->Og * J.nbmax * G->L * item)) : 0;
    size_t buf = up((size_t)(lm_conv_buf_len(G, &J.plan) * item));
    size_t per = col + tmp + buf + (kind == LM_CONV_BACKWARD_WEIGHT ? up(dw_bytes) : 0);
    /* one more block: alignment slack, and the permuted weight of a LAST plan */
    size_t total = per * (size_t)nt + 64 + (J.last ? up(dw_bytes) : 0);
    char *mem = lm_alloc(total);
    if (!mem) {
        lm_conv_plan_free(&J.plan);
        return lm_set_error(LM_ERR_MEMORY, "out of memory allocating %zu bytes of conv2d scratch", total);
    }
    char *base = (char *)(uintptr_t)up((size_t)(uintptr_t)mem), *wlast = base + per * (size_t)nt;
    if (J.last && kind != LM_CONV_BACKWARD_WEIGHT) {
        weight_pass P = {G, dt, 0, NULL, 0, b, wlast, true};
        lm_parallel_parts(nt, nt > 1, weight_part, &P);
        J.b = wlast;
    }
    run_ctx R = {&J, base, per, col, tmp, buf, out};
    int used = lm_gemm_threads(nt, nt > 1 || lm_should_parallelize(G->N * G->L * G->K * G->O / 16), run_part, &R);
    if (kind == LM_CONV_BACKWARD_WEIGHT && (used > 1 || J.last)) {
        weight_pass P = {G, dt, used, base + col + tmp + buf, per, J.last ? base + col + tmp + buf : out,
                         J.last ? out : NULL, false};
        lm_parallel_parts(nt, nt > 1, weight_part, &P);
    }
    lm_free(mem, total);
    lm_conv_plan_free(&J.plan);
    return 0;
}
