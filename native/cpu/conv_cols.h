/* conv2d's column buffers: im2col and col2im over one group of a run of samples. */
#ifndef LM_CONV_COLS_H
#define LM_CONV_COLS_H
#include "loom.h"

typedef struct {
    int64_t N, C, H, W, O, kh, kw, OH, OW, sh, sw, ph, pw, dh, dw, g, Cg, Og, K, L;
} lm_conv_geom;

/* How the columns are laid out and built:
 *   ROWS   col (K x nb*L), K ordered (c, i, j): a copy per output row (long rows).
 *   TABLE  the same layout, gathered through a table of K*L source offsets into a
 *          copy of the sample's planes with a zero after them, where padding taps
 *          point (short rows, few channels: one branch-free loop per column row
 *          instead of edge tests per row of 4 or 8 elements).
 *   LAST   col^T (nb*L x K), K ordered (i, j, c): each tap copies a run of Cg
 *          channels from a channels-last copy of the sample (short rows, many
 *          channels); the weight is permuted to (O, kh, kw, Cg) to match. */
enum { LM_COLS_ROWS, LM_COLS_TABLE, LM_COLS_LAST };
typedef struct { int mode; int32_t *table; } lm_conv_plan;

/* Picks the mode; falls back to ROWS (no table) when the table cannot be allocated. */
void lm_conv_plan_init(lm_conv_plan *P, const lm_conv_geom *G);
void lm_conv_plan_free(lm_conv_plan *P);

/* elements of the per-thread buffer the plan needs */
int64_t lm_conv_buf_len(const lm_conv_geom *G, const lm_conv_plan *P);

/* col <- x[n0:n0+nb, group g] (x contiguous NCHW); par: split the work over threads */
void lm_im2col(int dt, const lm_conv_geom *G, const lm_conv_plan *P, const char *x, int64_t n0, int64_t nb,
               int64_t g, char *col, char *buf, bool par);

/* ROWS layout for output rows oh0..oh1 of sample n alone: col (K x (oh1 - oh0) * OW), any plan */
void lm_im2col_band(int dt, const lm_conv_geom *G, const char *x, int64_t n, int64_t g, int64_t oh0, int64_t oh1,
                    char *col);

/* dx[n0:n0+nb, group g] = col2im(col): the planes are overwritten, not accumulated into */
void lm_col2im(int dt, const lm_conv_geom *G, const lm_conv_plan *P, const char *col, int64_t n0, int64_t nb,
               int64_t g, char *dx, char *buf, bool par);

/* LAST without a column buffer: the channels-last copies of samples n0..n0+nb of group g into cl
 * ((H * W + 1) * Cg elements each, the last Cg zero), then packers that write the columns
 * straight into lm_gemm_packing_b's blocks, its ctx a lm_cols_packer:
 *   pack_cols   B = col (K x nb*L), conv2d's product
 *   pack_rows   B = col^T (nb*L x K), backward-weight's */
typedef struct { int dt; const lm_conv_geom *G; const int32_t *table; const char *cl; } lm_cols_packer;
void lm_cols_last_copies(int dt, const lm_conv_geom *G, const char *x, int64_t n0, int64_t nb, int64_t g, char *cl);
void lm_cols_pack_cols(void *ctx, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr, char *dst);
void lm_cols_pack_rows(void *ctx, int64_t k0, int64_t kc, int64_t n0, int64_t nc, int nr, char *dst);

/* dst (cols x rows) = src (rows x cols) transposed, rows lds and ldd elements apart, elements of
 * item bytes (4 or 8), in tiles of 16 x 16 */
void lm_cols_transpose(int64_t item, int64_t rows, int64_t cols, const char *src, int64_t lds, char *dst, int64_t ldd);

#endif
