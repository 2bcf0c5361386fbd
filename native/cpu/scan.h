/* cumsum, cumprod, logcumsumexp, cummax and cummin (scan.c): the checks, the accumulating dtype and the result
 * shared by the host's loop and the CUDA kernel's (native/cuda/host_scan.c), which `run` fills in. */
#ifndef LOOM_SCAN_H
#define LOOM_SCAN_H
#include "loom.h"

enum { LM_SCAN_SUM, LM_SCAN_PROD, LM_SCAN_LOGSUMEXP };

/* out (new, contiguous, dtype rd) <- the running sum, product or log-sum-exp of x (self cast to rd)
 * along d: floats accumulate in double, integers in int64; 0 or -1 with the error set */
typedef int (*lm_scan_run)(lm_tensor *x, lm_tensor *out, int d, int mode);

lm_tensor *lm_scan(lm_tensor *self, int64_t dim, int rd, int mode, lm_scan_run run);
/* cumsum's and cumprod's dtype: dtype if given (>= 0), else self's if floating, else int64 */
int lm_scan_sum_dtype(lm_tensor *self, int dtype);
/* cummax/cummin: v (self's dtype) and ix (int64), new and contiguous, <- the running extreme of
 * self along d and where it was last reached (ties move on; a NaN sticks, a later NaN takes the index) */
typedef int (*lm_scan_extreme_run)(lm_tensor *self, lm_tensor *v, lm_tensor *ix, int d, bool is_max);

int lm_scan_extreme(lm_tensor *self, int64_t dim, bool is_max, lm_tensor **out, lm_scan_extreme_run run);

#endif
