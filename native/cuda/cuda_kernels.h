/* The hand-written CUDA kernels' C signatures, shared by the CUDA library
 * (which defines them in native/cuda/ (conv.cu, nn.cu, random.cu) and lists them by name in
 * named.cu) and loom._C (which looks each up once by name through
 * lm_cuda_kernel). Each returns 0 or a CUDA error code. Tensors arrive
 * contiguous; float32 and float64 unless said otherwise. */
#ifndef LOOM_CUDA_KERNELS_H
#define LOOM_CUDA_KERNELS_H
#include <stdint.h>

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
