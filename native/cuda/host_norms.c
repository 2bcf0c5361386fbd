/* native_layer_norm's and _batch_norm_train's own CUDA paths (and their backwards): the CPU
 * kernels' checks (native/cpu/norms.h), then the device kernels of norms.cu on contiguous
 * operands, results on the device. */
#include "cuda_host.h"
#include "loom_ops.h"
#include "norms.h"

/* releases the n references of k that are not NULL */
static void release_each(lm_tensor **k, int n) {
    for (int i = 0; i < n; i++)
        if (k[i]) lm_release(k[i]);
}

static const void *bytes_or_null(const lm_tensor *t) { return t ? lm_bytes(t) : NULL; }

/* out[0..3) <- res, or all released: err is 0 or -1 with the error set */
static int hand_out(int err, lm_tensor **res, lm_tensor **out) {
    if (err) {
        release_each(res, 3);
        return -1;
    }
    for (int i = 0; i < 3; i++) out[i] = res[i];
    return 0;
}

int lm_cuda_native_layer_norm(lm_tensor *input, const int64_t *normalized_shape, int64_t normalized_shape_len,
                              lm_tensor *weight, lm_tensor *bias, double eps, lm_tensor **out) {
    static lm_cuda_layer_norm_fn kern;
    int64_t M, N, n = normalized_shape_len, sh[LM_MAX_DIMS];
    if (lm_layer_norm_rows("native_layer_norm", input, normalized_shape, n, weight, bias, &M, &N)) return -1;
    if (!kern && !(kern = (lm_cuda_layer_norm_fn)lm_cuda_kernel("layer_norm"))) return -1;
    lm_tensor *in[3] = {input, weight, bias}, *k[3] = {0};
    if (lm_contiguous_each(in, k, 3)) return -1;
    int dt = input->dtype;
    for (int d = 0; d < input->ndim; d++) sh[d] = d < input->ndim - n ? input->shape[d] : 1;
    lm_tensor *res[3] = {lm_empty(input->ndim, input->shape, dt, LM_CUDA), lm_empty(input->ndim, sh, dt, LM_CUDA),
                         lm_empty(input->ndim, sh, dt, LM_CUDA)};
    int err = !res[0] || !res[1] || !res[2] ? -1 : 0;
    if (!err)
        err = lm_cuda_check(kern(dt, M, N, eps, lm_bytes(k[0]), bytes_or_null(k[1]), bytes_or_null(k[2]),
                                 lm_bytes(res[0]), lm_bytes(res[1]), lm_bytes(res[2])),
                            "native_layer_norm");
    release_each(k, 3);
    return hand_out(err, res, out);
}

int lm_cuda_native_layer_norm_backward(lm_tensor *grad_out, lm_tensor *input, const int64_t *normalized_shape,
                                       int64_t normalized_shape_len, lm_tensor *mean, lm_tensor *rstd,
                                       lm_tensor *weight, lm_tensor *bias, bool input_grad, bool weight_grad,
                                       bool bias_grad, lm_tensor **out) {
    static lm_cuda_layer_norm_backward_fn kern;
    int64_t M, N, n = normalized_shape_len, none = 0;
    if (lm_layer_norm_backward_rows(grad_out, input, normalized_shape, n, mean, rstd, weight, bias, &M, &N))
        return -1;
    if (!kern && !(kern = (lm_cuda_layer_norm_backward_fn)lm_cuda_kernel("layer_norm_backward"))) return -1;
    lm_tensor *in[5] = {grad_out, input, mean, rstd, weight}, *k[5] = {0};
    if (lm_contiguous_each(in, k, 5)) return -1;
    int dt = input->dtype;
    bool dw = weight_grad && weight, db = bias_grad && bias;
    lm_tensor *res[3] = {input_grad ? lm_empty(input->ndim, input->shape, dt, LM_CUDA) : lm_empty(1, &none, dt, LM_CUDA),
                         dw ? lm_empty((int)n, normalized_shape, dt, LM_CUDA) : lm_empty(1, &none, dt, LM_CUDA),
                         db ? lm_empty((int)n, normalized_shape, dt, LM_CUDA) : lm_empty(1, &none, dt, LM_CUDA)};
    int err = !res[0] || !res[1] || !res[2] ? -1 : 0;
    if (!err)
        err = lm_cuda_check(kern(dt, M, N, lm_bytes(k[0]), lm_bytes(k[1]), lm_bytes(k[2]), lm_bytes(k[3]),
                                 bytes_or_null(k[4]), input_grad ? lm_bytes(res[0]) : NULL,
                                 dw ? lm_bytes(res[1]) : NULL, db ? lm_bytes(res[2]) : NULL),
                            "native_layer_norm_backward");
    release_each(k, 5);
    return hand_out(err, res, out);
}

int lm_cuda__batch_norm_train(lm_tensor *input, lm_tensor *weight, lm_tensor *bias, double eps, lm_tensor **out) {
    static lm_cuda_batch_norm_fn kern;
    int64_t N = 0, C = 0, P = 0;
    if (lm_batch_norm_train_check(input, weight, bias, &N, &C, &P)) return -1;
    if (!kern && !(kern = (lm_cuda_batch_norm_fn)lm_cuda_kernel("batch_norm"))) return -1;
    lm_tensor *in[3] = {input, weight, bias}, *k[3] = {0};
    if (lm_contiguous_each(in, k, 3)) return -1;
    int dt = input->dtype;
    lm_tensor *res[3] = {lm_empty(input->ndim, input->shape, dt, LM_CUDA), lm_empty(1, &C, dt, LM_CUDA),
                         lm_empty(1, &C, dt, LM_CUDA)};
    int err = !res[0] || !res[1] || !res[2] ? -1 : 0;
    if (!err)
        err = lm_cuda_check(kern(dt, N, C, P, eps, lm_bytes(k[0]), bytes_or_null(k[1]), bytes_or_null(k[2]),
                                 lm_bytes(res[0]), lm_bytes(res[1]), lm_bytes(res[2])),
                            "_batch_norm_train");
    release_each(k, 3);
    return hand_out(err, res, out);
}

int lm_cuda__batch_norm_train_backward(lm_tensor *grad_out, lm_tensor *input, lm_tensor *mean, lm_tensor *invstd,
                                       lm_tensor *weight, bool input_grad, bool weight_grad, bool bias_grad,
                                       lm_tensor **out) {
    static lm_cuda_batch_norm_backward_fn kern;
    int64_t N = 0, C = 0, P = 0, none = 0;
    if (lm_batch_norm_backward_check(grad_out, input, mean, invstd, weight, &N, &C, &P)) return -1;
    if (!kern && !(kern = (lm_cuda_batch_norm_backward_fn)lm_cuda_kernel("batch_norm_backward"))) return -1;
    lm_tensor *in[5] = {grad_out, input, mean, invstd, weight}, *k[5] = {0};
    if (lm_contiguous_each(in, k, 5)) return -1;
    int dt = input->dtype;
    lm_tensor *res[3] = {input_grad ? lm_empty(input->ndim, input->shape, dt, LM_CUDA) : lm_empty(1, &none, dt, LM_CUDA),
                         lm_empty(1, weight_grad ? &C : &none, dt, LM_CUDA),
                         lm_empty(1, bias_grad ? &C : &none, dt, LM_CUDA)};
    int err = !res[0] || !res[1] || !res[2] ? -1 : 0;
    if (!err)
        err = lm_cuda_check(kern(dt, N, C, P, lm_bytes(k[0]), lm_bytes(k[1]), lm_bytes(k[2]), lm_bytes(k[3]),
                                 bytes_or_null(k[4]), input_grad ? lm_bytes(res[0]) : NULL,
                                 weight_grad ? lm_bytes(res[1]) : NULL, bias_grad ? lm_bytes(res[2]) : NULL),
                            "_batch_norm_train_backward");
    release_each(k, 5);
    return hand_out(err, res, out);
}
