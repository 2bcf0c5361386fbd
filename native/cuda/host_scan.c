/* cumsum's, cumprod's, logcumsumexp's, cummax's and cummin's own CUDA paths: the CPU kernels'
 * checks and dtypes (native/cpu/scan.h) with scan.cu's kernels in place of the host's loops. */
#include "cuda_host.h"
#include "index_util.h"
#include "loom_ops.h"
#include "scan.h"

/* x's shape and strides, and out's strides, along d */
static lm_cuda_scan_geom geom_of(lm_tensor *x, lm_tensor *out, int d) {
    lm_nd S, O;
    lm_as_nd(x, &S);
    lm_as_nd(out, &O);
    lm_cuda_scan_geom G = {.nd = S.nd, .d = d};
    for (int k = 0; k < S.nd; k++) {
        G.shape[k] = S.shape[k];
        G.x_strides[k] = S.strides[k];
        G.out_strides[k] = O.strides[k];
    }
    return G;
}

static int run_cuda(lm_tensor *x, lm_tensor *out, int d, int mode) {
    static lm_cuda_scan_fn kern;
    if (!kern && !(kern = (lm_cuda_scan_fn)lm_cuda_kernel("scan"))) return -1;
    lm_cuda_scan_geom G = geom_of(x, out, d);
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

static int run_extreme_cuda(lm_tensor *self, lm_tensor *v, lm_tensor *ix, int d, bool is_max) {
    static lm_cuda_scan_extreme_fn kern;
    if (!kern && !(kern = (lm_cuda_scan_extreme_fn)lm_cuda_kernel("scan_extreme"))) return -1;
    lm_cuda_scan_geom G = geom_of(self, v, d);
    return lm_cuda_check(kern(self->dtype, is_max, &G, lm_bytes(self), lm_bytes(v), (int64_t *)lm_bytes(ix)),
                         is_max ? "cummax" : "cummin");
}

int lm_cuda_cummax(lm_tensor *self, int64_t dim, lm_tensor **out) {
    return lm_scan_extreme(self, dim, true, out, run_extreme_cuda);
}

int lm_cuda_cummin(lm_tensor *self, int64_t dim, lm_tensor **out) {
    return lm_scan_extreme(self, dim, false, out, run_extreme_cuda);
}
