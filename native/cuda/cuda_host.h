/* What loom._C's CUDA code (native/cuda/host_*.c) shares. */
#ifndef LOOM_CUDA_HOST_H
#define LOOM_CUDA_HOST_H
#include "cuda_abi.h"
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
/* t (contiguous, on the device) <- random: kind 0 uniform [a, b), 1 normal (a, b), 2 integers [a, a + b) */
int lm_cuda_random_fill(lm_tensor *t, int kind, double a, double b);

#endif
