/* The argument checks of layer_norm's and batch_norm's kernels (layer_norm.c, batch_norm.c),
 * shared with their CUDA kernels (native/cuda/host_norms.c) so both refuse alike. Each is 0,
 * or -1 with the error set. */
#ifndef LOOM_NORMS_H
#define LOOM_NORMS_H
#include "loom.h"

/* rows M and row length N of input for normalized_shape (n dims); weight/bias must be normalized_shape */
int lm_layer_norm_rows(const char *op, lm_tensor *input, const int64_t *ns, int64_t n, lm_tensor *weight,
                       lm_tensor *bias, int64_t *M, int64_t *N);
/* the same, and grad_out, mean and rstd fit them (native_layer_norm_backward) */
int lm_layer_norm_backward_rows(lm_tensor *grad_out, lm_tensor *input, const int64_t *ns, int64_t n, lm_tensor *mean,
                                lm_tensor *rstd, lm_tensor *weight, lm_tensor *bias, int64_t *M, int64_t *N);
/* input viewed as (N, C, P): _batch_norm_train's and its backward's checks */
int lm_batch_norm_train_check(lm_tensor *input, lm_tensor *weight, lm_tensor *bias, int64_t *N, int64_t *C,
                              int64_t *P);
int lm_batch_norm_backward_check(lm_tensor *grad_out, lm_tensor *input, lm_tensor *mean, lm_tensor *invstd,
                                 lm_tensor *weight, int64_t *N, int64_t *C, int64_t *P);
/* contiguous copies (or new references) of ts[0..n) in k, NULL where ts[i] is */
int lm_contiguous_each(lm_tensor **ts, lm_tensor **k, int n);

#endif
