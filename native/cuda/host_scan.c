/* cumsum's, cumprod's and logcumsumexp's own CUDA paths: the CPU kernel's checks and dtypes
 * (native/cpu/scan.h) with scan.cu's kernel in place of the host's loop. */
#include "cuda_host.h"
#include "index_util.h"
#include "loom_ops.h"
#include "scan.h"

static int run_cuda(lm_tensor *x, lm_tensor *out, int d, int mode) {
    static lm_cuda_scan_fn kern;
    if (!kern && !(kern = (lm_cuda_scan_fn)lm_cuda_kernel("scan"))) return -1;
    lm_nd S, O;
    lm_as_nd(x, &S);
    lm_as_nd(out, &O);
    lm_cuda_scan_geom G = {.nd = S.nd, .d = d};
    for (int k = 0; k < S.nd; k++) {
        G.shape[k] = S.shape[k];
        G.x_strides[k] = S.strides[k];
        G.out_strides[k] = O.strides[k];
    }
    static const char *names[] = {"cumsum", "cumprod", "logcumsumexp"};
    return lm_cuda_check(kern(out->dtype, mode, lm_is_floating(out->dtype), &G, lm_bytes(x), lm_bytes(out)),
                         names[mode]);
}

lm_tensor *lm_cuda_cumsum(lm_tensor *self, int64_t dim, int dtype) {
    return lm_scan(self, dim, lm_scan_sum_dtype(self, dtype), LM_SCAN_SUM, run_cuda);
}

lm_tensor *lm_cuda_cumprod(lm_tensor *self, int64_t dim, int dtype) {
    return lm_scan(self, dim, lm_scan_sum_dtype(self, dtype), LM_SCAN_PROD, run_cuda);
}

lm_tensor *lm_cuda_logcumsumexp(lm_tensor *self, int64_t dim) {
    return lm_scan(self, dim, self->dtype, LM_SCAN_LOGSUMEXP, run_cuda);
}
