/* The hand-written CUDA kernels by name: lm_cuda_backend.kernel(name) finds
 * them here (signatures: cuda_kernels.h). */
#include <string.h>
#include "cuda_abi.h"
#include "cuda_kernels.h"

extern "C" {
int lm_cuda_k_softmax(int, int64_t, int64_t, int64_t, const void *, const void *, void *, int, int);
int lm_cuda_k_index_rows(int, int64_t, int64_t, int64_t, int64_t, const void *, const int64_t *, void *, int *);
int lm_cuda_k_random(int, int, void *, int64_t, uint64_t, uint64_t, double, double);
int lm_cuda_k_adam(int, int64_t, void *, const void *, void *, void *, const double *);
int lm_cuda_k_im2col(int, const lm_cuda_conv_geom *, const void *, int64_t, void *, int64_t, int64_t);
int lm_cuda_k_col2im(int, const lm_cuda_conv_geom *, const void *, int64_t, void *, int64_t, int64_t);
int lm_cuda_k_bias_fill(int, int64_t, int64_t, int64_t, const void *, int64_t, void *);
int lm_cuda_k_max_pool(int, const lm_cuda_pool_geom *, const void *, void *, int64_t *);
int lm_cuda_k_max_pool_backward(int, int64_t, int64_t, int64_t, const void *, const int64_t *, void *, int *);
int lm_cuda_k_nll(int, int, int64_t, int64_t, int64_t, const void *, const int64_t *, const void *, int64_t, int, double,
                  void *, void *);
int lm_cuda_k_layer_norm(int, int64_t, int64_t, double, const void *, const void *, const void *, void *, void *,
                         void *);
int lm_cuda_k_layer_norm_backward(int, int64_t, int64_t, const void *, const void *, const void *, const void *,
                                  const void *, void *, void *, void *);
int lm_cuda_k_batch_norm(int, int64_t, int64_t, int64_t, double, const void *, const void *, const void *, void *,
                         void *, void *);
int lm_cuda_k_gather(int, const lm_cuda_gather_geom *, const void *, const int64_t *, void *, int *);
int lm_cuda_k_scatter(int, int, const lm_cuda_gather_geom *, void *, const int64_t *, const void *, const void *, int *);
int lm_cuda_k_index_add(int, int64_t, int64_t, int64_t, int64_t, void *, const int64_t *, const void *, const void *);
int lm_cuda_k_argreduce(int, const lm_cuda_argreduce_geom *, int, const void *, void *, int64_t *);
int lm_cuda_k_scan(int, int, int, const lm_cuda_scan_geom *, const void *, void *);
int lm_cuda_k_scan_extreme(int, int, const lm_cuda_scan_geom *, const void *, void *, int64_t *);
int lm_cuda_k_avg_pool(int, const lm_cuda_pool_geom *, int, int, int, int64_t, const void *, void *);
int lm_cuda_k_batch_norm_backward(int, int64_t, int64_t, int64_t, const void *, const void *, const void *,
                                  const void *, const void *, void *, void *, void *);
}

namespace {
struct Named { const char *name; void *fn; };
const Named table[] = {
    {"softmax", (void *)(lm_cuda_softmax_fn)lm_cuda_k_softmax},
    {"index_rows", (void *)(lm_cuda_index_rows_fn)lm_cuda_k_index_rows},
    {"random", (void *)(lm_cuda_random_fn)lm_cuda_k_random},
    {"adam", (void *)(lm_cuda_adam_fn)lm_cuda_k_adam},
    {"im2col", (void *)(lm_cuda_im2col_fn)lm_cuda_k_im2col},
    {"col2im", (void *)(lm_cuda_im2col_fn)lm_cuda_k_col2im},
    {"bias_fill", (void *)(lm_cuda_bias_fill_fn)lm_cuda_k_bias_fill},
    {"nll", (void *)(lm_cuda_nll_fn)lm_cuda_k_nll},
    {"max_pool", (void *)(lm_cuda_max_pool_fn)lm_cuda_k_max_pool},
    {"max_pool_backward", (void *)(lm_cuda_max_pool_backward_fn)lm_cuda_k_max_pool_backward},
    {"layer_norm", (void *)(lm_cuda_layer_norm_fn)lm_cuda_k_layer_norm},
    {"layer_norm_backward", (void *)(lm_cuda_layer_norm_backward_fn)lm_cuda_k_layer_norm_backward},
    {"batch_norm", (void *)(lm_cuda_batch_norm_fn)lm_cuda_k_batch_norm},
    {"batch_norm_backward", (void *)(lm_cuda_batch_norm_backward_fn)lm_cuda_k_batch_norm_backward},
    {"gather", (void *)(lm_cuda_gather_fn)lm_cuda_k_gather},
    {"scatter", (void *)(lm_cuda_scatter_fn)lm_cuda_k_scatter},
    {"index_add", (void *)(lm_cuda_index_add_fn)lm_cuda_k_index_add},
    {"argreduce", (void *)(lm_cuda_argreduce_fn)lm_cuda_k_argreduce},
    {"scan", (void *)(lm_cuda_scan_fn)lm_cuda_k_scan},
    {"scan_extreme", (void *)(lm_cuda_scan_extreme_fn)lm_cuda_k_scan_extreme},
    {"avg_pool", (void *)(lm_cuda_avg_pool_fn)lm_cuda_k_avg_pool},
};
}  // namespace

extern "C" void *lm_cuda_named_kernel(const char *name) {
    for (const Named &k : table)
        if (!strcmp(k.name, name)) return k.fn;
    return nullptr;
}
