/* What loom._C's CUDA code (native/cuda/host_*.c) shares. */
#ifndef LOOM_CUDA_HOST_H
#define LOOM_CUDA_HOST_H
#include "cuda_abi.h"
#include "cuda_kernels.h"
#include "device.h"

/* the loaded CUDA library, NULL before lm_cuda_load */
const lm_cuda_backend *lm_cuda_backend_loaded(void);
/* 0 for CUDA's 0, else -1 with "CUDA error in WHAT: ..." set */
int lm_cuda_check(int err, const char *what);
/* x's kept and reduced dims for a CUDA reduction (host-side, unit-tested through it) */
void lm_cuda_red_geometry(const lm_tensor *x, const bool *red, lm_cuda_red_args *a);

/* a hand-written kernel of the CUDA library by name (cuda_kernels.h), or NULL with the error set */
void *lm_cuda_kernel(const char *name);
/* the kernels' calls from native/cpu (each 0, or -1 with the error set); tensors contiguous */
int lm_cuda_softmax_run(int dtype, int64_t outer, int64_t R, int64_t inner, const void *a, const void *y, void *out,
                        bool is_log, bool backward);
/* out (contiguous) <- src's slices at idx (int64, on the device, already checked) along d */
int lm_cuda_index_rows_run(lm_tensor *src, int d, lm_tensor *idx, lm_tensor *out);
/* one Adam step over one parameter on the device (cuda_kernels.h: lm_cuda_adam_fn) */
int lm_cuda_adam_run(int dtype, int64_t n, void *p, const void *g, void *m, void *v, const double *consts);
/* max_pool2d's forward and backward on the device (cuda_kernels.h); *bad: an index was off its plane */
int lm_cuda_max_pool_run(int dtype, const lm_cuda_pool_geom *G, const void *x, void *vals, int64_t *idx);
int lm_cuda_max_pool_backward_run(int dtype, int64_t planes, int64_t OL, int64_t HW, const void *g,
                                  const int64_t *idx, void *dx, bool *bad);
/* avg_pool2d's or adaptive_avg_pool2d's forward or backward on the device (cuda_kernels.h:
 * lm_cuda_avg_pool_fn); src and dst contiguous */
int lm_cuda_avg_pool_run(int dtype, const lm_cuda_pool_geom *G, bool adaptive, bool backward, bool count_include_pad,
                         int64_t divisor_override, const void *src, void *dst);
/* nll_loss's forward or backward on the device (cuda_kernels.h: lm_cuda_nll_fn); targets already checked */
int lm_cuda_nll_run(int dtype, bool backward, int64_t N, int64_t C, int64_t D, const void *a, const int64_t *t,
                    const void *w, int64_t ignore, int red, double scale, void *vals, void *out);
/* conv2d's three products on the device (native/cpu/conv_run.h's lm_conv_run, kind and operands alike) */
int lm_cuda_conv_run(int kind, const void *G, int dt, const char *a, const char *b, const char *bias,
                     int64_t bias_stride, char *out);
/* t (contiguous, on the device) <- random: kind 0 uniform [a, b), 1 normal (a, b), 2 integers [a, a + b) */
int lm_cuda_random_fill(lm_tensor *t, int kind, double a, double b);

#endif
