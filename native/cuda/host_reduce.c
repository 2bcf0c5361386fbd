/* argmax, argmin, max.dim and min.dim's own CUDA paths: the CPU kernel's checks and result shapes
 * (native/cpu/index_reduce.h) with argreduce.cu's kernel in place of the host's loop. */
#include "cuda_host.h"
#include "index_reduce.h"
#include "loom_ops.h"

static int run_cuda(lm_tensor *x, const lm_argreduce_geom *G, bool is_max, lm_tensor *vals, lm_tensor *idx) {
    static lm_cuda_argreduce_fn kern;
    if (!kern && !(kern = (lm_cuda_argreduce_fn)lm_cuda_kernel("argreduce"))) return -1;
    lm_cuda_argreduce_geom g = {.on = G->on, .outer = G->outer, .R = G->R, .rs = G->rs};
    for (int k = 0; k < G->on; k++) {
        g.oshape[k] = G->oshape[k];
        g.ostr[k] = G->ostr[k];
    }
    return lm_cuda_check(kern(x->dtype, &g, is_max, lm_bytes(x), vals ? lm_bytes(vals) : NULL,
                              (int64_t *)lm_bytes(idx)),
                         is_max ? "argmax" : "argmin");
}

lm_tensor *lm_cuda_argmax(lm_tensor *self, int64_t dim, bool keepdim) {
    lm_tensor *i = NULL;
    return lm_argreduce(self, dim, keepdim, true, NULL, &i, run_cuda) ? NULL : i;
}

lm_tensor *lm_cuda_argmin(lm_tensor *self, int64_t dim, bool keepdim) {
    lm_tensor *i = NULL;
    return lm_argreduce(self, dim, keepdim, false, NULL, &i, run_cuda) ? NULL : i;
}

int lm_cuda_max_dim(lm_tensor *self, int64_t dim, bool keepdim, lm_tensor **out) {
    return lm_argreduce(self, dim, keepdim, true, &out[0], &out[1], run_cuda);
}

int lm_cuda_min_dim(lm_tensor *self, int64_t dim, bool keepdim, lm_tensor **out) {
    return lm_argreduce(self, dim, keepdim, false, &out[0], &out[1], run_cuda);
}
