/* The hand-written CUDA kernels' C signatures, shared by the CUDA library
 * (which defines them in native/cuda/ (argreduce.cu, conv.cu, index.cu, nn.cu, norms.cu, pool.cu,
 * random.cu, scan.cu) and lists them by name in named.cu) and loom._C (which looks each up once by name through
 * lm_cuda_kernel). Each returns 0 or a CUDA error code. Tensors arrive
 * contiguous; float32 and float64 unless said otherwise. */
#ifndef LOOM_CUDA_KERNELS_H
#define LOOM_CUDA_KERNELS_H
#include <stdint.h>
#include "cuda_abi.h"   /* LM_MAX_DIMS */

/* softmax / log_softmax along R of a (outer, R, inner) array; backward: a is
 * the incoming gradient, y the forward output */
typedef int (*lm_cuda_softmax_fn)(int dtype, int64_t outer, int64_t R, int64_t inner, const void *a,
                                  const void *y, void *out, int is_log, int backward);

/* out[o, j, :] = src[o, idx[j], :] over (outer, nidx, inner) elements of `item`
 * bytes, src having src_dim rows; idx int64 on the device; an index out of
 * [0, src_dim) writes zeros and sets *bad (device memory; may be NULL) to 1 */
typedef int (*lm_cuda_index_rows_fn)(int item, int64_t outer, int64_t nidx, int64_t inner, int64_t src_dim,
                                     const void *src, const int64_t *idx, void *out, int *bad);

/* n random numbers of dtype from a counter-based generator (Philox4x32-10):
 * element i depends only on (seed, offset + i), not on the launch shape.
 * kind 0: uniform [a, b); 1: normal (mean a, std b); 2: integers [a, a + b) */
typedef int (*lm_cuda_random_fn)(int kind, int dtype, void *out, int64_t n, uint64_t seed, uint64_t offset,
                                 double a, double b);

/* one Adam step over n elements of one parameter p (its grad g, its moments m, v):
 * consts = beta1, 1 - beta1, beta2, 1 - beta2, eps, step size, 1/sqrt(bias correction 2),
 * decoupled shrink, L2 weight decay, sign (native/cpu/optim.c has the arithmetic) */
typedef int (*lm_cuda_adam_fn)(int dtype, int64_t n, void *p, const void *g, void *m, void *v, const double *consts);

/* nll_loss over (N, C, D) log-probabilities a and int64 targets t (checked), weight w or NULL.
 * forward: red 0 writes N*D values into out; else out[0] = scale * their sum (vals: N*D scratch).
 * backward: a is the incoming gradient (N*D values for red 0, else one); dx = out, zeroed by the
 * caller, gets -w[c] * g * scale at each target */
typedef int (*lm_cuda_nll_fn)(int dtype, int backward, int64_t N, int64_t C, int64_t D, const void *a,
                              const int64_t *t, const void *w, int64_t ignore, int red, double scale, void *vals,
                              void *out);

/* max_pool2d over planes of H x W (native/cpu/pool.c's geometry) */
typedef struct { int64_t planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw; } lm_cuda_pool_geom;
/* values and int64 flat indices (h * W + w) of each window's maximum; x contiguous */
typedef int (*lm_cuda_max_pool_fn)(int dtype, const lm_cuda_pool_geom *G, const void *x, void *vals, int64_t *idx);
/* dx (zeroed, planes x HW) += g (planes x OL) at idx; an index off the plane sets *bad (device int).
 * float32 and float64 */
typedef int (*lm_cuda_max_pool_backward_fn)(int dtype, int64_t planes, int64_t OL, int64_t HW, const void *g,
                                            const int64_t *idx, void *dx, int *bad);

/* native_layer_norm over M rows of N (x contiguous; w, b: N values or NULL): y, and each row's mean
 * and rstd; the backward's dx, dw, db (each NULL when not asked) from dy and the forward's stats */
typedef int (*lm_cuda_layer_norm_fn)(int dtype, int64_t M, int64_t N, double eps, const void *x, const void *w,
                                     const void *b, void *y, void *mean, void *rstd);
typedef int (*lm_cuda_layer_norm_backward_fn)(int dtype, int64_t M, int64_t N, const void *dy, const void *x,
                                              const void *mean, const void *rstd, const void *w, void *dx, void *dw,
                                              void *db);
/* _batch_norm_train over x viewed as (N, C, P), statistics per channel; the backward alike */
typedef int (*lm_cuda_batch_norm_fn)(int dtype, int64_t N, int64_t C, int64_t P, double eps, const void *x,
                                     const void *w, const void *b, void *y, void *mean, void *invstd);
typedef int (*lm_cuda_batch_norm_backward_fn)(int dtype, int64_t N, int64_t C, int64_t P, const void *dy,
                                              const void *x, const void *mean, const void *invstd, const void *w,
                                              void *dx, void *dw, void *db);

/* gather and scatter: an index of shape[0..nd) (int64, contiguous) picks along dim d, of `size`
 * elements, of self (gather's source, scatter's output; self_strides in elements); src_strides are
 * scatter's source's. Every dtype kernels compute in. An index out of [0, size) writes nothing and
 * sets *bad (a device int) */
typedef struct {
    int nd, d;
    int64_t size;
    int64_t shape[LM_MAX_DIMS], self_strides[LM_MAX_DIMS], src_strides[LM_MAX_DIMS];
} lm_cuda_gather_geom;
/* out (contiguous, the index's shape) <- self at the index */
typedef int (*lm_cuda_gather_fn)(int dtype, const lm_cuda_gather_geom *G, const void *self, const int64_t *idx,
                                 void *out, int *bad);
/* out at the index <- src (mode 0), *fill (mode 1: a host value of dtype) or out + src (mode 2), the
 * writes along d in the index's order (the last wins, sums in the CPU's order) */
typedef int (*lm_cuda_scatter_fn)(int dtype, int mode, const lm_cuda_gather_geom *G, void *out, const int64_t *idx,
                                  const void *src, const void *fill, int *bad);
/* index_add: out (outer, size, inner) += *alpha (a host value of dtype) * src (outer, m, inner) at idx
 * (m int64 values, checked) along the middle dim */
typedef int (*lm_cuda_index_add_fn)(int dtype, int64_t outer, int64_t size, int64_t m, int64_t inner, void *out,
                                    const int64_t *idx, const void *src, const void *alpha);

/* argmax/argmin (max.dim/min.dim): a line of R elements (stride rs) at each of the outer offsets (the
 * on dims oshape, strides ostr; elements); idx[o] <- the line's first maximum (minimum; NaN wins), vals
 * (or NULL) <- its value. Every dtype kernels compute in */
typedef struct {
    int on;
    int64_t outer, R, rs;
    int64_t oshape[LM_MAX_DIMS], ostr[LM_MAX_DIMS];
} lm_cuda_argreduce_geom;
typedef int (*lm_cuda_argreduce_fn)(int dtype, const lm_cuda_argreduce_geom *G, int is_max, const void *x, void *vals,
                                    int64_t *idx);

/* cumsum (mode 0), cumprod (1), logcumsumexp (2) of x (strides x_strides, elements) along d into out
 * (out_strides): floats (is_float) accumulate in double, integers in int64. Every dtype kernels compute in */
typedef struct {
    int nd, d;
    int64_t shape[LM_MAX_DIMS], x_strides[LM_MAX_DIMS], out_strides[LM_MAX_DIMS];
} lm_cuda_scan_geom;
typedef int (*lm_cuda_scan_fn)(int dtype, int mode, int is_float, const lm_cuda_scan_geom *G, const void *x, void *out);
/* cummax (is_max) / cummin of x along d: vals (x's dtype) and idx (int64), both at out_strides */
typedef int (*lm_cuda_scan_extreme_fn)(int dtype, int is_max, const lm_cuda_scan_geom *G, const void *x, void *vals,
                                       int64_t *idx);

/* avg_pool2d (adaptive 0: G's windows, count_include_pad, divisor_override or INT64_MIN) or
 * adaptive_avg_pool2d (1: only planes, H, W, OH, OW read): src x (planes, H, W) -> dst (planes, OH, OW),
 * or backward src the gradient (planes, OH, OW) -> dst dx (planes, H, W), every element written */
typedef int (*lm_cuda_avg_pool_fn)(int dtype, const lm_cuda_pool_geom *G, int adaptive, int backward,
                                   int count_include_pad, int64_t divisor_override, const void *src, void *dst);

/* conv2d's geometry (native/cpu/conv_cols.h's lm_conv_geom, field for field) */
typedef struct {
    int64_t N, C, H, W, O, kh, kw, OH, OW, sh, sw, ph, pw, dh, dw, g, Cg, Og, K, L;
} lm_cuda_conv_geom;

/* im2col: col[n*sN + k*sK + l] <- x (N, C, H, W) taps of group g, k = (c, i, j), l = (oh, ow);
 * col2im: dx's planes of group g <- the sums of the column entries of their taps (overwritten) */
typedef int (*lm_cuda_im2col_fn)(int dtype, const lm_cuda_conv_geom *G, const void *src, int64_t g, void *dst,
                                 int64_t sN, int64_t sK);
/* out (N, O, L) <- bias[o * stride] */
typedef int (*lm_cuda_bias_fill_fn)(int dtype, int64_t N, int64_t O, int64_t L, const void *bias, int64_t stride,
                                    void *out);

#endif
