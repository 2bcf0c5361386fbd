/* Winograd F(2x2, 3x3) (Lavin and Gray, 2015). A 2x2 block of outputs is
 *     Y = A^T [ sum over channels of (G w G^T) . (B^T d B) ] A
 * for the 4x4 input tile d under it: per 4x4 tile, 16 products per channel pair
 * instead of im2col's 36, made as 16 GEMMs (one per point xi of the 4x4
 * transform domain) of the transformed weight U[xi] (out x in channels) by the
 * transformed tiles V[xi] (in channels x tiles).
 *   Backward-input is the same convolution of grad with the weight flipped and
 * its channel axes swapped, padded 2 - p. Backward-weight is the adjoint:
 *     dW = G^T [ sum over tiles of (A dY A^T) . (B^T d B) ] G,
 * 16 GEMMs of the transformed grad tiles by the transformed input tiles.
 *   Tiles are handled in blocks whose transforms stay in L2 between the
 * transform writing them and the GEMMs reading them; the blocks are split over
 * the OpenMP threads, each running its own single-threaded GEMMs. */
#include <stdint.h>
#include <string.h>
#include "conv_winograd.h"
#include "gemm.h"
#include "iter.h"

#define XI 16                              /* points of the 4x4 transform domain */
#define BLOCK_BYTES ((int64_t)512 << 10)   /* a block's V and M: half a 1 MB L2 */
#define MIN_CHANNELS 8                     /* fewer make GEMMs too thin to beat im2col's */
#define MAX_CHANNELS 256   /* U[xi] outgrows L2 and each thin GEMM re-packs it: 512 took 1.4x im2col's time */
#define MIN_BLOCK 64       /* below, packing U[xi] for a GEMM costs more than the L2 saves */
#define MIN_WIDTH 8    /* below, the transforms cost more than the products save: at 4x4, 1.3x im2col's time */

/* The tiled tensor (N, g * Cgi, H, W), read as 4x4 tiles at stride 2 from (-ph, -pw),
 * each under a 2x2 block of the (OH, OW) output plane. */
typedef struct {
    int64_t N, H, W, OH, OW, ph, pw;
    int64_t g, Cgi, Cgo;   /* groups; channels per group of the tiled tensor and of the product */
    int64_t tH, tW, tiles, block;
} wgeom;

/* consecutive tiles of a block on one tile row: sample n, tile row th, first column tw, index j in the block */
typedef struct { int64_t n, th, tw, len, j; } run;

static run run_at(const wgeom *W, int64_t t, int64_t end, int64_t t0) {
    int64_t per = W->tH * W->tW, rem = t % per;
    run r = {t / per, rem / W->tW, rem % W->tW, 0, t - t0};
    r.len = W->tW - r.tw < end - t ? W->tW - r.tw : end - t;
    return r;
}

/* dst[0:width] = row `row` of the (H, W) plane from column q0, zero outside it */
static void load_row(const float *plane, int64_t H, int64_t W, int64_t row, int64_t q0, int64_t width, float *dst) {
    if (row < 0 || row >= H) {
        memset(dst, 0, sizeof(float) * (size_t)width);
        return;
    }
    int64_t lo = q0 < 0 ? -q0 : 0, hi = W - q0;
    if (lo > width) lo = width;
    if (hi > width) hi = width;
    if (hi < lo) hi = lo;
    const float *src = plane + row * W + q0;
    if (width <= 16) {   /* the short rows of small planes: a call each would cost more than the copy */
        for (int64_t k = 0; k < width; k++) dst[k] = k >= lo && k < hi ? src[k] : 0.0f;
        return;
    }
    memset(dst, 0, sizeof(float) * (size_t)lo);
    memcpy(dst + lo, src + lo, sizeof(float) * (size_t)(hi - lo));
    memset(dst + hi, 0, sizeof(float) * (size_t)(width - hi));
}

/* The transforms work on VW tiles at once, as vectors (GCC's generic vectors:
 * one AVX-512 register, or two AVX2 ones), over the whole block: the rows its
 * tiles read are first gathered run by run (a run: the block's tiles on one tile
 * row), two floats per tile, so that tiles of different tile rows and samples
 * sit at one stride and small planes fill the vectors too. The block's last
 * vector may reach past it: its rows are zero there, and its stores land in the
 * ld - nb spare columns. */
#define VW 16
typedef float vf __attribute__((vector_size(VW * sizeof(float))));
typedef int32_t vi __attribute__((vector_size(VW * sizeof(float))));
static const vi EVEN = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
static const vi ODD = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
static const vi LOW = {0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23};
static const vi HIGH = {8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};

static inline vf vload(const float *p) { vf v; memcpy(&v, p, sizeof v); return v; }
static inline void vstore(float *p, vf v) { memcpy(p, &v, sizeof v); }
static int64_t vectors(int64_t len) { return (len + VW - 1) / VW; }
static int64_t gathered(int64_t nb) { return 2 * VW * vectors(nb); }   /* floats of one gathered row */

/* V[xi][c][j] (row stride ld) = B^T d B for tile j of the block and channel c0 + c of x. Tile j's
 * columns 0, 1 of its input row i are a[i][2j], a[i][2j+1]; its columns 2, 3 are b[i][2j], b[i][2j+1]. */
static void input_tf(const wgeom *W, const float *x, int64_t c0, int64_t t0, int64_t nb, int64_t ld, float *V,
                     float *buf) {
    int64_t span = W->Cgi * ld, plane = W->H * W->W, width = gathered(nb);
    float *a = buf, *b = buf + 4 * width;
    memset(buf, 0, sizeof(float) * (size_t)(8 * width));   /* the tail past 2 nb stays zero */
    for (int64_t c = 0; c < W->Cgi; c++) {
        for (int64_t t = t0; t < t0 + nb;) {
            run r = run_at(W, t, t0 + nb, t0);
            const float *xp = x + (r.n * W->g * W->Cgi + c0 + c) * plane;
            int64_t q0 = 2 * r.tw - W->pw;
            for (int i = 0; i < 4; i++) {
                int64_t row = 2 * r.th - W->ph + i;
                load_row(xp, W->H, W->W, row, q0, 2 * r.len, a + i * width + 2 * r.j);
                load_row(xp, W->H, W->W, row, q0 + 2, 2 * r.len, b + i * width + 2 * r.j);
            }
            t += r.len;
        }
        for (int64_t q = 0; q < vectors(nb); q++) {
            vf h[4][4];   /* rows: h = d B */
            for (int i = 0; i < 4; i++) {
                const float *pa = a + i * width + 2 * VW * q, *pb = b + i * width + 2 * VW * q;
                vf l0 = vload(pa), l1 = vload(pa + VW), m0 = vload(pb), m1 = vload(pb + VW);
                vf d0 = __builtin_shuffle(l0, l1, EVEN), d1 = __builtin_shuffle(l0, l1, ODD);
                vf d2 = __builtin_shuffle(m0, m1, EVEN), d3 = __builtin_shuffle(m0, m1, ODD);
                h[i][0] = d0 - d2;
                h[i][1] = d1 + d2;
                h[i][2] = d2 - d1;
                h[i][3] = d1 - d3;
            }
            float *v = V + c * ld + VW * q;
            for (int k = 0; k < 4; k++) {   /* columns: V = B^T h */
                vstore(v + k * span, h[0][k] - h[2][k]);
                vstore(v + (4 + k) * span, h[1][k] + h[2][k]);
                vstore(v + (8 + k) * span, h[2][k] - h[1][k]);
                vstore(v + (12 + k) * span, h[1][k] - h[3][k]);
            }
        }
    }
}

/* the 2x2 output blocks of channel co0 + o = A^T m A (+ bias), m = M[xi][o][j] (row stride ld):
 * tile j's output row a is ob[a][2j], ob[a][2j+1], scattered run by run */
static void output_tf(const wgeom *W, const float *M, int64_t co0, int64_t t0, int64_t nb, int64_t ld, float *out,
                      const float *bias, int64_t bias_stride, float *ob) {
    int64_t span = W->Cgo * ld, plane = W->OH * W->OW, width = gathered(nb);
    for (int64_t o = 0; o < W->Cgo; o++) {
        for (int64_t q = 0; q < vectors(nb); q++) {
            const float *m = M + o * ld + VW * q;
            vf s[2][4];   /* rows: s = A^T m */
            for (int k = 0; k < 4; k++) {
                vf m0 = vload(m + k * span), m1 = vload(m + (4 + k) * span), m2 = vload(m + (8 + k) * span),
                   m3 = vload(m + (12 + k) * span);
                s[0][k] = m0 + m1 + m2;
                s[1][k] = m1 - m2 - m3;
            }
            for (int a = 0; a < 2; a++) {   /* columns: s A, interleaved */
                vf y0 = s[a][0] + s[a][1] + s[a][2], y1 = s[a][1] - s[a][2] - s[a][3];
                float *y = ob + a * width + 2 * VW * q;
                vstore(y, __builtin_shuffle(y0, y1, LOW));
                vstore(y + VW, __builtin_shuffle(y0, y1, HIGH));
            }
        }
        float bv = bias ? bias[(co0 + o) * bias_stride] : 0.0f;
        for (int64_t t = t0; t < t0 + nb;) {
            run r = run_at(W, t, t0 + nb, t0);
            int64_t cols = W->OW - 2 * r.tw < 2 * r.len ? W->OW - 2 * r.tw : 2 * r.len;
            float *op = out + (r.n * W->g * W->Cgo + co0 + o) * plane + 2 * r.tw;
            for (int a = 0; a < 2 && 2 * r.th + a < W->OH; a++) {
                float *restrict dst = op + (2 * r.th + a) * W->OW;
                const float *restrict y = ob + a * width + 2 * r.j;
                for (int64_t k = 0; k < cols; k++) dst[k] = y[k] + bv;
            }
            t += r.len;
        }
    }
}

/* D[xi][o][j] (row stride ld) = A dY A^T for tile j's 2x2 block of channel co0 + o of gy (zero beyond the
 * plane); tile j's row a of dY is g[a][2j], g[a][2j+1] */
static void grad_tf(const wgeom *W, const float *gy, int64_t co0, int64_t t0, int64_t nb, int64_t ld, float *D,
                    float *buf) {
    int64_t span = W->Cgo * ld, plane = W->OH * W->OW, width = gathered(nb);
    memset(buf, 0, sizeof(float) * (size_t)(2 * width));
    for (int64_t o = 0; o < W->Cgo; o++) {
        for (int64_t t = t0; t < t0 + nb;) {
            run r = run_at(W, t, t0 + nb, t0);
            const float *gp = gy + (r.n * W->g * W->Cgo + co0 + o) * plane;
            for (int a = 0; a < 2; a++)
                load_row(gp, W->OH, W->OW, 2 * r.th + a, 2 * r.tw, 2 * r.len, buf + a * width + 2 * r.j);
            t += r.len;
        }
        for (int64_t q = 0; q < vectors(nb); q++) {
            vf e[2][4];   /* rows: e = dY A^T */
            for (int a = 0; a < 2; a++) {
                const float *p = buf + a * width + 2 * VW * q;
                vf l0 = vload(p), l1 = vload(p + VW);
                vf y0 = __builtin_shuffle(l0, l1, EVEN), y1 = __builtin_shuffle(l0, l1, ODD);
                e[a][0] = y0;
                e[a][1] = y0 + y1;
                e[a][2] = y0 - y1;
                e[a][3] = -y1;
            }
            float *d = D + o * ld + VW * q;
            for (int k = 0; k < 4; k++) {   /* columns: D = A e */
                vstore(d + k * span, e[0][k]);
                vstore(d + (4 + k) * span, e[0][k] + e[1][k]);
                vstore(d + (8 + k) * span, e[0][k] - e[1][k]);
                vstore(d + (12 + k) * span, -e[1][k]);
            }
        }
    }
}

/* U[xi][g][p][q] (Cgo x Cgi per group) = G w G^T of the kernel from input channel q to output
 * channel p; transposed (backward-input): the weight's own (q, p) kernel, flipped */
static void weight_tf(const wgeom *W, const float *w, bool transposed, float *U) {
    int64_t per_xi = W->g * W->Cgo * W->Cgi;
    for (int64_t g = 0; g < W->g; g++)
        for (int64_t p = 0; p < W->Cgo; p++)
            for (int64_t q = 0; q < W->Cgi; q++) {
                float f[9], t[4][3];
                if (transposed) {
                    const float *k = w + ((g * W->Cgi + q) * W->Cgo + p) * 9;
                    for (int e = 0; e < 9; e++) f[e] = k[8 - e];
                } else {
                    memcpy(f, w + ((g * W->Cgo + p) * W->Cgi + q) * 9, sizeof f);
                }
                for (int b = 0; b < 3; b++) {
                    t[0][b] = f[b];
                    t[1][b] = 0.5f * (f[b] + f[3 + b] + f[6 + b]);
                    t[2][b] = 0.5f * (f[b] - f[3 + b] + f[6 + b]);
                    t[3][b] = f[6 + b];
                }
                float *u = U + (g * W->Cgo + p) * W->Cgi + q;
                for (int i = 0; i < 4; i++) {
                    u[(4 * i + 0) * per_xi] = t[i][0];
                    u[(4 * i + 1) * per_xi] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
                    u[(4 * i + 2) * per_xi] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
                    u[(4 * i + 3) * per_xi] = t[i][2];
                }
            }
}

/* dw (g * Cgo, Cgi, 3, 3) = G^T m G from m = acc[xi][g][p][q] */
static void weight_grad_tf(const wgeom *W, const float *acc, float *dw) {
    int64_t per_xi = W->g * W->Cgo * W->Cgi;
    for (int64_t e = 0; e < per_xi; e++) {
        float m[4][4], r[3][4];
        for (int x = 0; x < XI; x++) m[x / 4][x % 4] = acc[x * per_xi + e];
        for (int k = 0; k < 4; k++) {
            r[0][k] = m[0][k] + 0.5f * (m[1][k] + m[2][k]);
            r[1][k] = 0.5f * (m[1][k] - m[2][k]);
            r[2][k] = 0.5f * (m[1][k] + m[2][k]) + m[3][k];
        }
        float *d = dw + e * 9;
        for (int i = 0; i < 3; i++) {
            d[3 * i + 0] = r[i][0] + 0.5f * (r[i][1] + r[i][2]);
            d[3 * i + 1] = 0.5f * (r[i][1] - r[i][2]);
            d[3 * i + 2] = 0.5f * (r[i][1] + r[i][2]) + r[i][3];
        }
    }
}

typedef struct {
    lm_conv_kind kind;
    wgeom W;
    const float *x, *U, *gy, *bias;   /* x: the tiled tensor; U (forward kinds) or gy (backward-weight) */
    int64_t bias_stride;
    float *out;
} job;

/* columns of a block's V and M rows: nb, and the spare the block's last vector writes */
static int64_t row_stride(int64_t nb) { return vectors(nb) * VW; }

/* tiles lo..hi in blocks; backward-weight sums into acc (zeroed here) */
static void tile_range(const job *J, float *scratch, float *acc, int64_t lo, int64_t hi) {
    const wgeom *W = &J->W;
    int64_t ldmax = row_stride(W->block);
    float *V = scratch, *M = V + XI * W->Cgi * ldmax, *buf = M + XI * W->Cgo * ldmax;
    int64_t per_xi = W->g * W->Cgo * W->Cgi, gw = W->Cgo * W->Cgi;
    if (acc) memset(acc, 0, sizeof(float) * (size_t)(XI * per_xi));
    for (int64_t t0 = lo; t0 < hi; t0 += W->block) {
        int64_t nb = hi - t0 < W->block ? hi - t0 : W->block, ld = row_stride(nb);
        for (int64_t g = 0; g < W->g; g++) {
            input_tf(W, J->x, g * W->Cgi, t0, nb, ld, V, buf);
            if (J->kind == LM_CONV_BACKWARD_WEIGHT) {
                grad_tf(W, J->gy, g * W->Cgo, t0, nb, ld, M, buf);
                for (int x = 0; x < XI; x++)   /* acc[xi][g] += D[xi] (Cgo x nb) @ V[xi]^T (nb x Cgi) */
                    lm_gemm(LM_FLOAT32, W->Cgo, W->Cgi, nb, (lm_mat){(const char *)(M + x * W->Cgo * ld), ld, 1},
                            (lm_mat){(const char *)(V + x * W->Cgi * ld), 1, ld},
                            (char *)(acc + x * per_xi + g * gw), W->Cgi, true);
            } else {
                for (int x = 0; x < XI; x++)   /* M[xi] = U[xi][g] (Cgo x Cgi) @ V[xi] (Cgi x nb) */
                    lm_gemm(LM_FLOAT32, W->Cgo, nb, W->Cgi,
                            (lm_mat){(const char *)(J->U + x * per_xi + g * gw), W->Cgi, 1},
                            (lm_mat){(const char *)(V + x * W->Cgi * ld), ld, 1}, (char *)(M + x * W->Cgo * ld), ld,
                            false);
                output_tf(W, M, g * W->Cgo, t0, nb, ld, J->out, J->bias, J->bias_stride, buf);
            }
        }
    }
}

/* thread t's share of the tiles, with its scratch (and its sums for backward-weight) */
typedef struct { const job *J; char *base; size_t per, acc; } run_ctx;

static void run_part(int t, int n, void *ctx) {
    const run_ctx *R = ctx;
    char *m = R->base + (R->per + R->acc) * (size_t)t;
    int64_t tiles = R->J->W.tiles;
    tile_range(R->J, (float *)m, R->acc ? (float *)(m + R->per) : NULL, tiles * t / n, tiles * (t + 1) / n);
}

bool lm_winograd_applies(lm_conv_kind kind, const lm_conv_geom *G, int dt) {
    bool transposed = kind == LM_CONV_BACKWARD_INPUT;   /* tiles over the input plane, padded 2 - p */
    return dt == LM_FLOAT32 && G->kh == 3 && G->kw == 3 && G->sh == 1 && G->sw == 1 && G->dh == 1 && G->dw == 1 &&
           G->Cg >= MIN_CHANNELS && G->Og >= MIN_CHANNELS && G->Cg <= MAX_CHANNELS && G->Og <= MAX_CHANNELS &&
           (transposed ? G->W : G->OW) >= MIN_WIDTH &&
           (!transposed || (G->ph <= 2 && G->pw <= 2));
}

static size_t up(size_t n) { return (n + 63) & ~(size_t)63; }

int lm_winograd_run(lm_conv_kind kind, const lm_conv_geom *G, const float *a, const float *b, const float *bias,
                    int64_t bias_stride, float *out) {
    job J = {kind, {0}, a, NULL, NULL, bias, bias_stride, out};
    wgeom *W = &J.W;
    if (kind == LM_CONV_BACKWARD_INPUT)   /* grad (N, O, OH, OW) tiled, padded 2 - p, into (N, C, H, W) */
        *W = (wgeom){G->N, G->OH, G->OW, G->H, G->W, 2 - G->ph, 2 - G->pw, G->g, G->Og, G->Cg, 0, 0, 0, 0};
    else                                  /* the input tiled under the (OH, OW) output plane */
        *W = (wgeom){G->N, G->H, G->W, G->OH, G->OW, G->ph, G->pw, G->g, G->Cg, G->Og, 0, 0, 0, 0};
    if (kind == LM_CONV_BACKWARD_WEIGHT) { J.x = b; J.gy = a; }
    W->tH = (W->OH + 1) / 2;
    W->tW = (W->OW + 1) / 2;
    W->tiles = W->N * W->tH * W->tW;
    size_t per_xi = (size_t)(W->g * W->Cgo * W->Cgi);
    if (W->tiles == 0) {
        if (kind == LM_CONV_BACKWARD_WEIGHT) memset(out, 0, sizeof(float) * per_xi * 9);
        return 0;
    }
    int nt = lm_get_num_threads();
    if (nt < 2 || !lm_should_parallelize(W->tiles * W->Cgo * W->Cgi * W->g)) nt = 1;
    if (nt > W->tiles) nt = (int)W->tiles;
    int64_t block = BLOCK_BYTES / ((int64_t)sizeof(float) * XI * (W->Cgi + W->Cgo));
    int64_t share = (W->tiles + nt - 1) / nt;
    W->block = block < MIN_BLOCK ? MIN_BLOCK : block;
    if (W->block > share) W->block = share;

    /* V and M, and the block's gathered rows: 8 for the input transform, 2 for the others */
    size_t per = up(sizeof(float) * (size_t)(XI * (W->Cgi + W->Cgo) * row_stride(W->block) + 8 * gathered(W->block)));
    size_t acc = kind == LM_CONV_BACKWARD_WEIGHT ? up(sizeof(float) * XI * per_xi) : 0;
    size_t u = kind == LM_CONV_BACKWARD_WEIGHT ? 0 : up(sizeof(float) * XI * per_xi);
    size_t total = (per + acc) * (size_t)nt + u + 64;
    char *mem = lm_alloc(total);
    if (!mem) return lm_set_error(LM_ERR_MEMORY, "out of memory allocating %zu bytes of conv2d scratch", total);
    char *base = (char *)(uintptr_t)up((size_t)(uintptr_t)mem);
    if (u) {
        weight_tf(W, b, kind == LM_CONV_BACKWARD_INPUT, (float *)(base + (per + acc) * (size_t)nt));
        J.U = (const float *)(base + (per + acc) * (size_t)nt);
    }
    run_ctx R = {&J, base, per, acc};
    int used = lm_gemm_threads(nt, lm_should_parallelize(W->tiles * W->Cgo * W->Cgi * W->g / 4), run_part, &R);
    if (kind == LM_CONV_BACKWARD_WEIGHT) {   /* the threads' sums in a fixed order, then back from the domain */
        float *sum = (float *)(base + per);
        for (int t = 1; t < used; t++) {
            const float *p = (const float *)(base + (per + acc) * (size_t)t + per);
            for (size_t i = 0; i < XI * per_xi; i++) sum[i] += p[i];
        }
        weight_grad_tf(W, sum, out);
    }
    lm_free(mem, total);
    return 0;
}
