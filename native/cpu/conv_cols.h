/* conv2d's column buffers: im2col and col2im over one group of a run of samples. */
#ifndef LM_CONV_COLS_H
#define LM_CONV_COLS_H
#include "loom.h"

typedef struct {
    int64_t N, C, H, W, O, kh, kw, OH, OW, sh, sw, ph, pw, dh, dw, g, Cg, Og, K, L;
} lm_conv_geom;

/* Small images (rows of a few outputs) go through a table of K*L source offsets
 * into one sample's group planes, copied into a buffer with a zero after them
 * (where padding taps point): one branch-free gather per column row, instead of
 * a loop with edge tests per output row of 4 or 8 elements. NULL (use the
 * row-copy path) when rows are long, the table big, or on allocation failure. */
int32_t *lm_conv_table(const lm_conv_geom *G);

/* elements of the per-thread buffer the table path needs */
int64_t lm_conv_buf_len(const lm_conv_geom *G);

/* col (K x nb*L) <- x[n0:n0+nb, group g] (x contiguous NCHW); par: split the work over threads */
void lm_im2col(int dt, const lm_conv_geom *G, const int32_t *table, const char *x, int64_t n0, int64_t nb, int64_t g,
               char *col, char *buf, bool par);

/* dx[n0:n0+nb, group g] = col2im(col): the planes are overwritten, not accumulated into */
void lm_col2im(int dt, const lm_conv_geom *G, const int32_t *table, const char *col, int64_t n0, int64_t nb, int64_t g,
               char *dx, char *buf, bool par);

#endif
