/* linear: input (..., in) @ weight(out, in)^T + bias, one GEMM over all leading dims. */
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "iter.h"
#include "gemm.h"

lm_tensor *lm_cpu_linear(lm_tensor *input, lm_tensor *weight, lm_tensor *bias) {
    if (input->ndim < 1) { lm_set_error(LM_ERR_VALUE, "input must be at least 1-D (got a 0-D tensor)"); return NULL; }
    if (weight->ndim != 2) { lm_set_error(LM_ERR_VALUE, "weight must be 2-D (out_features, in_features), got %dD", weight->ndim); return NULL; }
    int64_t K = input->shape[input->ndim - 1], N = weight->shape[0];
    if (weight->shape[1] != K) {
        lm_set_error(LM_ERR_VALUE, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)(K ? lm_numel(input) / K : 0), (long long)K, (long long)weight->shape[1], (long long)N);
        return NULL;
    }
    if (input->dtype != weight->dtype || (bias && bias->dtype != input->dtype)) {
        lm_set_error(LM_ERR_TYPE, "expected input, weight and bias to have the same dtype, but got %s, %s and %s",
                     lm_dtype_name(input->dtype), lm_dtype_name(weight->dtype), lm_dtype_name(bias ? bias->dtype : weight->dtype));
        return NULL;
    }
    if (bias && !(bias->ndim == 1 && bias->shape[0] == N) && !(bias->ndim == 0)) {
        lm_set_error(LM_ERR_VALUE, "bias must have shape (%lld,) to match out_features, got a %dD tensor",
                     (long long)N, bias->ndim);
        return NULL;
    }
    lm_tensor *x = input->ndim == 2 ? (lm_retain(input), input) : lm_contiguous(input);
    if (!x) return NULL;
    int64_t M = K ? lm_numel(input) / K : 0;
    if (K == 0) { M = 1; for (int d = 0; d < input->ndim - 1; d++) M *= input->shape[d]; }
    int64_t oshape[LM_MAX_DIMS];
    memcpy(oshape, input->shape, sizeof(int64_t) * (size_t)input->ndim);
    oshape[input->ndim - 1] = N;
    lm_tensor *out = lm_empty(input->ndim, oshape, input->dtype, input->device);
    if (!out) { lm_release(x); return NULL; }
    int64_t item = (int64_t)lm_itemsize(input->dtype);
    char *o = lm_bytes(out);
    if (bias) {   /* rows start as the bias, then the product accumulates onto them */
        const char *b = lm_bytes(bias);
        int64_t bs = bias->ndim ? bias->strides[0] : 0;
        for (int64_t j = 0; j < N; j++) memcpy(o + j * item, b + j * bs * item, (size_t)item);
        for (int64_t i = 1; i < M; i++) memcpy(o + i * N * item, o, (size_t)(N * item));
    }
    lm_mat a = {lm_bytes(x), x->ndim == 2 ? x->strides[0] : K, x->ndim == 2 ? x->strides[1] : 1};
    lm_mat w = {lm_bytes(weight), weight->strides[1], weight->strides[0]};   /* weight^T: K x N */
    void *gil = lm_should_parallelize(M * N * K / 16) ? lm_gil_release() : NULL;
    if (K > 0) lm_gemm(input->dtype, M, N, K, a, w, o, N, bias != NULL);
    else if (!bias) memset(o, 0, (size_t)(M * N * item));
    lm_gil_reacquire(gil);
    lm_release(x);
    return out;
}
