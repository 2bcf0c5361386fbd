/* im2col / col2im for conv2d (see conv_cols.h). The callers split the batch
 * over threads, so these run on one thread, except the row path for a single
 * big sample (par: the caller found no batch to split), which splits its channels. */
#include <stdlib.h>
#include <string.h>
#include "conv_cols.h"
#include "gemm.h"
#include "iter.h"
#include "parallel.h"

#define SHORT_ROW 16                 /* longer output rows copy fast enough one row at a time */
#define TABLE_MAX_LEN ((int64_t)1 << 16)
#define LAST_MIN_CHANNELS 8          /* runs of fewer channels copy no faster than a gather */

static int32_t *nchw_table(const lm_conv_geom *G) {
    int64_t planes = G->Cg * G->H * G->W;
    int32_t *t = malloc(sizeof(int32_t) * (size_t)(G->K * G->L + 1));
    if (!t) return NULL;
    for (int64_t c = 0, k = 0; c < G->Cg; c++)
        for (int64_t i = 0; i < G->kh; i++)
            for (int64_t j = 0; j < G->kw; j++, k++)
                for (int64_t oh = 0, l = 0; oh < G->OH; oh++)
                    for (int64_t ow = 0; ow < G->OW; ow++, l++) {
                        int64_t ih = oh * G->sh - G->ph + i * G->dh, iw = ow * G->sw - G->pw + j * G->dw;
                        bool in = ih >= 0 && ih < G->H && iw >= 0 && iw < G->W;
                        t[k * G->L + l] = (int32_t)(in ? (c * G->H + ih) * G->W + iw : planes);
                    }
    return t;
}

/* per output position l and tap (i, j): the input pixel ih * W + iw, or H * W (the zero row) */
static int32_t *tap_table(const lm_conv_geom *G) {
    int64_t taps = G->kh * G->kw, HW = G->H * G->W;
    int32_t *t = malloc(sizeof(int32_t) * (size_t)(G->L * taps + 1));
    if (!t) return NULL;
    for (int64_t oh = 0, l = 0; oh < G->OH; oh++)
        for (int64_t ow = 0; ow < G->OW; ow++, l++)
            for (int64_t i = 0; i < G->kh; i++)
                for (int64_t j = 0; j < G->kw; j++) {
                    int64_t ih = oh * G->sh - G->ph + i * G->dh, iw = ow * G->sw - G->pw + j * G->dw;
                    bool in = ih >= 0 && ih < G->H && iw >= 0 && iw < G->W;
                    t[l * taps + i * G->kw + j] = (int32_t)(in ? ih * G->W + iw : HW);
                }
    return t;
}

void lm_conv_plan_init(lm_conv_plan *P, const lm_conv_geom *G) {
    P->mode = LM_COLS_ROWS;
    P->table = NULL;
    if (G->OW > SHORT_ROW || G->Cg * G->H * G->W >= INT32_MAX) return;
    if (G->Cg >= LAST_MIN_CHANNELS && G->L * G->kh * G->kw <= TABLE_MAX_LEN) {
        if ((P->table = tap_table(G))) P->mode = LM_COLS_LAST;
    } else if (G->K * G->L <= TABLE_MAX_LEN) {
        if ((P->table = nchw_table(G))) P->mode = LM_COLS_TABLE;
    }
}

void lm_conv_plan_free(lm_conv_plan *P) {
    free(P->table);
    P->table = NULL;
}

/* TABLE: samples gathered at once. Their planes (each with its zero) stay in L1
 * while every column row takes its run of them, so the writes go to consecutive
 * addresses (one sample at a time strode through all K rows of the buffer,
 * 4 KiB apart at batch 64, and missed the cache on every store). */
static int64_t block(const lm_conv_geom *G) {
    int64_t b = 8192 / (G->Cg * G->H * G->W + 1);
    return b < 1 ? 1 : (b > G->N ? G->N : b);
}

int64_t lm_conv_buf_len(const lm_conv_geom *G, const lm_conv_plan *P) {
    if (P->mode == LM_COLS_LAST) return (G->H * G->W + 1) * G->Cg;
    return P->mode == LM_COLS_TABLE ? block(G) * (G->Cg * G->H * G->W + 1) : 0;
}

/* The LAST plan's channels-last copies and weight permutation: element by element, writes Cg apart,
 * they were most of its im2col (0.76 of 0.96 ms at 16x32x32x32, 4x4 stride 2) */
#define TRANSPOSE(T)                                                                                               \
    static void transpose_##T(int64_t rows, int64_t cols, const T *src, int64_t lds, T *dst, int64_t ldd) {        \
        if (sizeof(T) == 4 && lm_transpose_float(rows, cols, (const float *)src, lds, (float *)dst, ldd)) return; \
        for (int64_t i0 = 0; i0 < rows; i0 += 16)                                                                  \
            for (int64_t j0 = 0; j0 < cols; j0 += 16)                                                              \
                for (int64_t j = j0; j < cols && j < j0 + 16; j++)                                                 \
                    for (int64_t i = i0; i < rows && i < i0 + 16; i++) dst[j * ldd + i] = src[i * lds + j];        \
    }
TRANSPOSE(float)
TRANSPOSE(double)

void lm_cols_transpose(int64_t item, int64_t rows, int64_t cols, const char *src, int64_t lds, char *dst, int64_t ldd) {
    if (item == 4) transpose_float(rows, cols, (const float *)src, lds, (float *)dst, ldd);
    else transpose_double(rows, cols, (const double *)src, lds, (double *)dst, ldd);
}

/* The packers read the copies through the tap table: position p of the run is sample p / L's
 * output position p % L, and its tap q the run of Cg channels at pixel table[l * taps + q].
 * Built in a buffer first, the columns were written and read once more before the GEMM's own
 * packing (at 16x32x32x32, 4x4 stride 2, conv2d went from about 2.15 to 2.05 ms on one thread). */
#define PACKERS(T)                                                                                                 \
    static void pack_cols_##T(const lm_cols_packer *P, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr,     \
                              T *d) {                                                                              \
        const lm_conv_geom *G = P->G;                                                                              \
        int64_t Cg = G->Cg, taps = G->kh * G->kw, span = (G->H * G->W + 1) * Cg;                                   \
        const T *cl = (const T *)P->cl, *zero = cl + G->H * G->W * Cg;                                             \
        for (int64_t p0 = n0; p0 < n0 + nc; p0 += nr, d += nr * kc)                                                \
            for (int h0 = 0; h0 < nr; h0 += 16) {   /* 16 positions, a 16 x 16 transpose per 16 channels */       \
                const T *base[16];                                                                                 \
                const int32_t *tap[16];                                                                            \
                int rows = nr - h0 < 16 ? nr - h0 : 16;                                                            \
                for (int i = 0; i < 16; i++) {                                                                     \
                    int64_t p = p0 + h0 + i;                                                                       \
                    base[i] = i < rows && p < n0 + nc ? cl + p / G->L * span : NULL;                               \
                    tap[i] = base[i] ? P->table + p % G->L * taps : NULL;                                          \
                }                                                                                                  \
                for (int64_t k = k0; k < k0 + kc;) {                                                               \
                    int64_t q = k / Cg, c = k % Cg, run = Cg - c < k0 + kc - k ? Cg - c : k0 + kc - k;             \
                    const T *src[16];                                                                              \
                    for (int i = 0; i < 16; i++) src[i] = base[i] ? base[i] + tap[i][q] * Cg + c : zero;           \
                    T *to = d + (k - k0) * nr + h0;                                                                \
                    if (sizeof(T) != 4 || !lm_transpose_rows_float(rows, (const float *const *)src, run,           \
                                                                   (float *)to, nr))                               \
                        for (int64_t j = 0; j < run; j++)                                                          \
                            for (int i = 0; i < rows; i++) to[j * nr + i] = src[i][j];                             \
                    k += run;                                                                                      \
                }                                                                                                  \
            }                                                                                                      \
    }                                                                                                              \
    static void pack_rows_##T(const lm_cols_packer *P, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr,     \
                              T *d) {                                                                              \
        const lm_conv_geom *G = P->G;                                                                              \
        int64_t Cg = G->Cg, taps = G->kh * G->kw, span = (G->H * G->W + 1) * Cg, panels = (nc + nr - 1) / nr;      \
        /* a row (position) at a time: its sample and taps looked up once for all its panels */                    \
        for (int64_t r = 0; r < kc; r++) {                                                                         \
            int64_t p = k0 + r;                                                                                    \
            const T *base = (const T *)P->cl + p / G->L * span;                                                    \
            const int32_t *tap = P->table + p % G->L * taps;                                                       \
            for (int64_t pn = 0; pn < panels; pn++) {                                                              \
                int64_t j0 = n0 + pn * nr, cnt = n0 + nc - j0 < nr ? n0 + nc - j0 : nr;                            \
                int64_t q = j0 / Cg, c = j0 % Cg;                                                                  \
                T *restrict to = d + pn * nr * kc + r * nr;                                                        \
                if (cnt == nr && c + nr <= Cg) {   /* the panel within one tap's run: one straight copy */         \
                    const T *restrict from = base + tap[q] * Cg + c;                                               \
                    for (int e = 0; e < nr; e++) to[e] = from[e];                                                  \
                    continue;                                                                                      \
                }                                                                                                  \
                for (int64_t j = 0; j < cnt; j++) {                                                                \
                    int64_t k = j0 + j;                                                                            \
                    to[j] = base[tap[k / Cg] * Cg + k % Cg];                                                       \
                }                                                                                                  \
                for (int64_t j = cnt; j < nr; j++) to[j] = 0;                                                      \
            }                                                                                                      \
        }                                                                                                          \
    }
PACKERS(float)
PACKERS(double)

void lm_cols_last_copies(int dt, const lm_conv_geom *G, const char *x, int64_t n0, int64_t nb, int64_t g, char *cl) {
    int64_t item = (int64_t)lm_itemsize(dt), HW = G->H * G->W, span = (HW + 1) * G->Cg * item;
    for (int64_t n = 0; n < nb; n++) {
        char *to = cl + n * span;
        lm_cols_transpose(item, G->Cg, HW, x + ((n0 + n) * G->C + g * G->Cg) * HW * item, HW, to, G->Cg);
        memset(to + HW * G->Cg * item, 0, (size_t)(G->Cg * item));
    }
}

void lm_cols_pack_cols(void *ctx, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr, char *dst) {
    const lm_cols_packer *P = ctx;
    if (P->dt == LM_FLOAT32) pack_cols_float(P, k0, kc, n0, nc, nr, (float *)dst);
    else pack_cols_double(P, k0, kc, n0, nc, nr, (double *)dst);
}

void lm_cols_pack_rows(void *ctx, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr, char *dst) {
    const lm_cols_packer *P = ctx;
    if (P->dt == LM_FLOAT32) pack_rows_float(P, k0, kc, n0, nc, nr, (float *)dst);
    else pack_rows_double(P, k0, kc, n0, nc, nr, (double *)dst);
}

typedef struct {
    const lm_conv_geom *G;
    const void *src;
    int64_t n0, nb, g;
    void *dst;
} cols_job;

#define COLS(T)                                                                                                    \
    /* output rows oh0..oh1 of each sample: a band of (oh1 - oh0) * OW columns */                                \
    static void im2col_row_##T(const lm_conv_geom *G, const T *x, int64_t n0, int64_t nb, int64_t g, T *col,       \
                               int64_t c, int64_t i, int64_t j, int64_t oh0, int64_t oh1) {                        \
        int64_t band = (oh1 - oh0) * G->OW, cols = nb * band;                                                      \
        T *row = col + ((c * G->kh + i) * G->kw + j) * cols;                                                       \
        int64_t off = j * G->dw - G->pw;                                                                           \
        for (int64_t n = 0; n < nb; n++) {                                                                         \
            const T *plane = x + ((n0 + n) * G->C + g * G->Cg + c) * G->H * G->W;                                  \
            T *r = row + n * band;                                                                                 \
            for (int64_t oh = oh0; oh < oh1; oh++) {                                                               \
                int64_t ih = oh * G->sh - G->ph + i * G->dh;                                                       \
                T *rr = r + (oh - oh0) * G->OW;                                                                    \
                if (ih < 0 || ih >= G->H) { memset(rr, 0, sizeof(T) * (size_t)G->OW); continue; }                  \
                const T *line = plane + ih * G->W;                                                                 \
                if (G->sw == 1) {   /* a contiguous run between two zero margins */                                \
                    int64_t lo = off < 0 ? -off : 0, hi = G->W - off < G->OW ? G->W - off : G->OW;                 \
                    if (lo > G->OW) lo = G->OW;                                                                    \
                    if (hi < lo) hi = lo;                                                                          \
                    for (int64_t ow = 0; ow < lo; ow++) rr[ow] = 0;                                                \
                    if (hi > lo) memcpy(rr + lo, line + lo + off, sizeof(T) * (size_t)(hi - lo));                  \
                    for (int64_t ow = hi; ow < G->OW; ow++) rr[ow] = 0;                                            \
                    continue;                                                                                      \
                }                                                                                                  \
                /* the ow whose iw = ow * sw + off falls inside [0, W), without a test per element,            \
                 * which kept the strided copy scalar (half of conv_transpose2d's backward at DCGAN's last layer) */ \
                int64_t lo = off < 0 ? (-off + G->sw - 1) / G->sw : 0;                                             \
                int64_t hi = G->W - 1 - off < 0 ? 0 : (G->W - 1 - off) / G->sw + 1;                                \
                if (hi > G->OW) hi = G->OW;                                                                        \
                if (lo > hi) lo = hi;                                                                              \
                for (int64_t ow = 0; ow < lo; ow++) rr[ow] = 0;                                                    \
                if (G->sw == 2) {                                                                                  \
                    const T *src = line + off;                                                                     \
                    for (int64_t ow = lo; ow < hi; ow++) rr[ow] = src[2 * ow];                                     \
                } else {                                                                                           \
                    for (int64_t ow = lo; ow < hi; ow++) rr[ow] = line[ow * G->sw + off];                          \
                }                                                                                                  \
                for (int64_t ow = hi; ow < G->OW; ow++) rr[ow] = 0;                                                \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
    /* planes of channel c += the taps of rows (c, i, j) */                                                        \
    static void col2im_chan_##T(const lm_conv_geom *G, const T *col, int64_t n0, int64_t nb, int64_t g, T *dx,     \
                                int64_t c) {                                                                       \
        int64_t cols = nb * G->L;                                                                                  \
        for (int64_t n = 0; n < nb; n++)                                                                           \
            memset(dx + ((n0 + n) * G->C + g * G->Cg + c) * G->H * G->W, 0, sizeof(T) * (size_t)(G->H * G->W));    \
        for (int64_t i = 0; i < G->kh; i++)                                                                        \
            for (int64_t j = 0; j < G->kw; j++) {                                                                  \
                const T *row = col + ((c * G->kh + i) * G->kw + j) * cols;                                         \
                /* the ow whose iw = ow * sw + off falls inside [0, W) */                                          \
                int64_t off = j * G->dw - G->pw;                                                                   \
                int64_t lo = off < 0 ? (-off + G->sw - 1) / G->sw : 0;                                             \
                int64_t hi = G->W - 1 - off < 0 ? 0 : (G->W - 1 - off) / G->sw + 1;                                \
                if (hi > G->OW) hi = G->OW;                                                                        \
                for (int64_t n = 0; n < nb; n++) {                                                                 \
                    T *plane = dx + ((n0 + n) * G->C + g * G->Cg + c) * G->H * G->W;                               \
                    const T *r = row + n * G->L;                                                                   \
                    for (int64_t oh = 0; oh < G->OH; oh++) {                                                       \
                        int64_t ih = oh * G->sh - G->ph + i * G->dh;                                               \
                        if (ih < 0 || ih >= G->H) continue;                                                        \
                        T *line = plane + ih * G->W;                                                               \
                        const T *rr = r + oh * G->OW;                                                              \
                        for (int64_t ow = lo; ow < hi; ow++) line[ow * G->sw + off] += rr[ow];                     \
                    }                                                                                              \
                }                                                                                                  \
            }                                                                                                      \
    }                                                                                                              \
    /* LAST: col^T rows (n, l) <- runs of Cg channels of a channels-last copy of each sample */                    \
    static void im2col_last_##T(const lm_conv_geom *G, const int32_t *tab, const T *x, int64_t n0, int64_t nb,     \
                                int64_t g, T *col, T *buf) {                                                       \
        int64_t HW = G->H * G->W, Cg = G->Cg, taps = G->kh * G->kw, K = G->K;                                      \
        memset(buf + HW * Cg, 0, sizeof(T) * (size_t)Cg);                                                          \
        for (int64_t n = 0; n < nb; n++) {                                                                         \
            const T *xs = x + ((n0 + n) * G->C + g * Cg) * HW;                                                     \
            transpose_##T(Cg, HW, xs, HW, buf, Cg);                                                                \
            for (int64_t l = 0; l < G->L; l++) {                                                                   \
                T *row = col + (n * G->L + l) * K;                                                                 \
                const int32_t *t = tab + l * taps;                                                                 \
                for (int64_t q = 0; q < taps; q++) {   /* inline: a call per run of 32 floats cost 15 % */      \
                    T *restrict d = row + q * Cg;                                                                  \
                    const T *restrict s = buf + t[q] * Cg;                                                         \
                    for (int64_t c = 0; c < Cg; c++) d[c] = s[c];                                                  \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
    static void col2im_last_##T(const lm_conv_geom *G, const int32_t *tab, const T *col, int64_t n0, int64_t nb,   \
                                int64_t g, T *dx, T *buf) {                                                        \
        int64_t HW = G->H * G->W, Cg = G->Cg, taps = G->kh * G->kw, K = G->K;                                      \
        for (int64_t n = 0; n < nb; n++) {                                                                         \
            memset(buf, 0, sizeof(T) * (size_t)((HW + 1) * Cg));                                                   \
            for (int64_t l = 0; l < G->L; l++) {                                                                   \
                const T *row = col + (n * G->L + l) * K;                                                           \
                const int32_t *t = tab + l * taps;                                                                 \
                for (int64_t q = 0; q < taps; q++) {   /* padding taps land in the zero row, never read */         \
                    T *restrict d = buf + t[q] * Cg;                                                               \
                    const T *restrict s = row + q * Cg;                                                            \
                    for (int64_t c = 0; c < Cg; c++) d[c] += s[c];                                                 \
                }                                                                                                  \
            }                                                                                                      \
            T *xs = dx + ((n0 + n) * G->C + g * Cg) * HW;                                                          \
            transpose_##T(HW, Cg, buf, Cg, xs, HW);                                                                \
        }                                                                                                          \
    }                                                                                                              \
    /* the rows path's parts for lm_parallel_parts (timed for its busy-machine backoff, where an OpenMP         \
     * region of their own was not): column rows (c, i, j), or channels */                   \
    static void im2col_rows_##T(int t, int nt, void *vj) {                                                         \
        const cols_job *J = vj;                                                                                    \
        const lm_conv_geom *G = J->G;                                                                              \
        for (int64_t k = G->K * t / nt; k < G->K * (t + 1) / nt; k++)                                             \
            im2col_row_##T(G, (const T *)J->src, J->n0, J->nb, J->g, (T *)J->dst, k / (G->kh * G->kw),             \
                           k / G->kw % G->kh, k % G->kw, 0, G->OH);                                                \
    }                                                                                                              \
    static void col2im_chans_##T(int t, int nt, void *vj) {                                                        \
        const cols_job *J = vj;                                                                                    \
        for (int64_t c = J->G->Cg * t / nt; c < J->G->Cg * (t + 1) / nt; c++) col2im_chan_##T(J->G, (const T *)J->src, J->n0, J->nb, J->g, (T *)J->dst, c); \
    }                                                                                                              \
    static void im2col_##T(const lm_conv_geom *G, const int32_t *tab, const T *x, int64_t n0, int64_t nb,          \
                           int64_t g, T *col, T *buf, bool par) {                                                  \
        int64_t cols = nb * G->L, K = G->K, L = G->L, span = G->Cg * G->H * G->W, blk = block(G);                  \
        if (tab) {                                                                                                 \
            for (int64_t b0 = 0; b0 < nb; b0 += blk) {                                                             \
                int64_t bn = nb - b0 < blk ? nb - b0 : blk;                                                        \
                for (int64_t n = 0; n < bn; n++) {                                                                 \
                    memcpy(buf + n * (span + 1), x + ((n0 + b0 + n) * G->C + g * G->Cg) * G->H * G->W,             \
                           sizeof(T) * (size_t)span);                                                              \
                    buf[n * (span + 1) + span] = 0;                                                                \
                }                                                                                                  \
                const T *restrict from = buf;                                                                      \
                for (int64_t k = 0; k < K; k++) {                                                                  \
                    const int32_t *restrict t = tab + k * L;                                                       \
                    T *restrict dst = col + k * cols + b0 * L;                                                     \
                    for (int64_t n = 0; n < bn; n++)                                                               \
                        for (int64_t l = 0; l < L; l++) dst[n * L + l] = from[n * (span + 1) + t[l]];              \
                }                                                                                                  \
            }                                                                                                      \
            return;                                                                                                \
        }                                                                                                          \
        cols_job J = {G, x, n0, nb, g, col};                                                                      \
        /* K rows (c, i, j), each its own; the caller (conv_run's region) has let the GIL go */                  \
        lm_parallel_parts(par ? lm_get_num_threads() : 1, false, im2col_rows_##T, &J);                             \
    }                                                                                                              \
    static void col2im_##T(const lm_conv_geom *G, const int32_t *tab, const T *col, int64_t n0, int64_t nb,        \
                           int64_t g, T *dx, T *buf, bool par) {                                                   \
        int64_t cols = nb * G->L, K = G->K, L = G->L, span = G->Cg * G->H * G->W, blk = block(G);                  \
        if (tab) {                                                                                                 \
            for (int64_t b0 = 0; b0 < nb; b0 += blk) {                                                             \
                int64_t bn = nb - b0 < blk ? nb - b0 : blk;                                                        \
                T *restrict to = buf;                                                                              \
                memset(to, 0, sizeof(T) * (size_t)(bn * (span + 1)));                                              \
                for (int64_t k = 0; k < K; k++) {                                                                  \
                    const int32_t *restrict t = tab + k * L;                                                       \
                    const T *restrict src = col + k * cols + b0 * L;                                               \
                    for (int64_t n = 0; n < bn; n++) {                                                             \
                        T *restrict p = to + n * (span + 1);                                                       \
                        /* one row's taps hit distinct positions, but for the zero slot (never read) */            \
                        _Pragma("GCC ivdep")                                                                       \
                        for (int64_t l = 0; l < L; l++) p[t[l]] += src[n * L + l];                                 \
                    }                                                                                              \
                }                                                                                                  \
                for (int64_t n = 0; n < bn; n++)                                                                   \
                    memcpy(dx + ((n0 + b0 + n) * G->C + g * G->Cg) * G->H * G->W, to + n * (span + 1),             \
                           sizeof(T) * (size_t)span);                                                              \
            }                                                                                                      \
            return;                                                                                                \
        }                                                                                                          \
        cols_job J = {G, col, n0, nb, g, dx};                                                                     \
        /* channels write disjoint planes */                                                                       \
        lm_parallel_parts(par ? lm_get_num_threads() : 1, false, col2im_chans_##T, &J);                            \
    }
COLS(float)
COLS(double)

void lm_im2col_band(int dt, const lm_conv_geom *G, const char *x, int64_t n, int64_t g, int64_t oh0, int64_t oh1,
                    char *col) {
    for (int64_t c = 0; c < G->Cg; c++)
        for (int64_t i = 0; i < G->kh; i++)
            for (int64_t j = 0; j < G->kw; j++) {
                if (dt == LM_FLOAT32) im2col_row_float(G, (const float *)x, n, 1, g, (float *)col, c, i, j, oh0, oh1);
                else im2col_row_double(G, (const double *)x, n, 1, g, (double *)col, c, i, j, oh0, oh1);
            }
}

void lm_im2col(int dt, const lm_conv_geom *G, const lm_conv_plan *P, const char *x, int64_t n0, int64_t nb,
               int64_t g, char *col, char *buf, bool par) {
    const int32_t *t = P->table;
    if (P->mode == LM_COLS_LAST) {
        if (dt == LM_FLOAT32) im2col_last_float(G, t, (const float *)x, n0, nb, g, (float *)col, (float *)buf);
        else im2col_last_double(G, t, (const double *)x, n0, nb, g, (double *)col, (double *)buf);
    } else if (dt == LM_FLOAT32) im2col_float(G, t, (const float *)x, n0, nb, g, (float *)col, (float *)buf, par);
    else im2col_double(G, t, (const double *)x, n0, nb, g, (double *)col, (double *)buf, par);
}

void lm_col2im(int dt, const lm_conv_geom *G, const lm_conv_plan *P, const char *col, int64_t n0, int64_t nb,
               int64_t g, char *dx, char *buf, bool par) {
    const int32_t *t = P->table;
    if (P->mode == LM_COLS_LAST) {
        if (dt == LM_FLOAT32) col2im_last_float(G, t, (const float *)col, n0, nb, g, (float *)dx, (float *)buf);
        else col2im_last_double(G, t, (const double *)col, n0, nb, g, (double *)dx, (double *)buf);
    } else if (dt == LM_FLOAT32) col2im_float(G, t, (const float *)col, n0, nb, g, (float *)dx, (float *)buf, par);
    else col2im_double(G, t, (const double *)col, n0, nb, g, (double *)dx, (double *)buf, par);
}
