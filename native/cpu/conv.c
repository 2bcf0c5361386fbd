/* conv2d and its two backward products, all as im2col + one GEMM per group over
 * a chunk of samples (batching the samples makes the small images of typical
 * models one big GEMM instead of many tiny ones). The batch is split over the
 * OpenMP threads, each running its own single-threaded GEMMs (conv_run.c). */
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "conv_run.h"
#include "int_pair.h"
#include "cuda_host.h"

typedef lm_conv_geom geom;

static int make_geom(geom *G, const int64_t *in, const int64_t *wt, const int64_t *stride, int64_t stride_len,
                     const int64_t *padding, int64_t padding_len, const int64_t *dilation, int64_t dilation_len,
                     int64_t groups) {
    int64_t s[2], p[2], d[2];
    if (lm_int_pair("stride", stride, stride_len, NULL, s, 1) ||
        lm_int_pair("padding", padding, padding_len, NULL, p, 0) ||
        lm_int_pair("dilation", dilation, dilation_len, NULL, d, 1))
        return -1;
    if (groups < 1) return lm_set_error(LM_ERR_VALUE, "groups must be positive, got %lld", (long long)groups);
    G->N = in[0]; G->C = in[1]; G->H = in[2]; G->W = in[3];
    G->O = wt[0]; G->kh = wt[2]; G->kw = wt[3];
    G->sh = s[0]; G->sw = s[1]; G->ph = p[0]; G->pw = p[1]; G->dh = d[0]; G->dw = d[1]; G->g = groups;
    if (G->C % groups || G->O % groups)
        return lm_set_error(LM_ERR_VALUE, "in_channels (%lld) and out_channels (%lld) must both be divisible by "
                            "groups (%lld)", (long long)G->C, (long long)G->O, (long long)groups);
    G->Cg = G->C / groups; G->Og = G->O / groups;
    if (wt[1] != G->Cg)
        return lm_set_error(LM_ERR_VALUE, "expected input with %lld channels (weight of size [%lld, %lld, %lld, %lld] "
                            "and groups=%lld), but got %lld channels", (long long)(wt[1] * groups), (long long)wt[0],
                            (long long)wt[1], (long long)wt[2], (long long)wt[3], (long long)groups, (long long)G->C);
    int64_t eh = G->dh * (G->kh - 1) + 1, ew = G->dw * (G->kw - 1) + 1;
    if (G->H + 2 * G->ph < eh || G->W + 2 * G->pw < ew)
        return lm_set_error(LM_ERR_VALUE, "input size per channel (%lld x %lld, padded %lld x %lld) is smaller than the "
                            "kernel size (%lld x %lld)", (long long)G->H, (long long)G->W, (long long)(G->H + 2 * G->ph),
                            (long long)(G->W + 2 * G->pw), (long long)eh, (long long)ew);
    G->OH = (G->H + 2 * G->ph - eh) / G->sh + 1;
    G->OW = (G->W + 2 * G->pw - ew) / G->sw + 1;
    G->K = G->Cg * G->kh * G->kw;
    G->L = G->OH * G->OW;
    return 0;
}

static int check4d(const char *what, const lm_tensor *t) {
    return t->ndim == 4 ? 0 : lm_set_error(LM_ERR_VALUE, "expected 4-D %s (N, C, H, W), got a %dD tensor", what, t->ndim);
}

/* the product on the operands' device: the CPU's threaded driver, or CUDA's columns + cuBLAS */
static int run_on(int device, lm_conv_kind kind, const geom *G, int dt, const char *a, const char *b,
                  const char *bias, int64_t bias_stride, char *out) {
    if (device == LM_CUDA) return lm_cuda_conv_run(kind, G, dt, a, b, bias, bias_stride, out);
    return lm_conv_run(kind, G, dt, a, b, bias, bias_stride, out);
}

/* one call's tensors, released together */
static lm_tensor *finish(lm_tensor *out, int rc, lm_tensor *a, lm_tensor *b) {
    lm_release(a);
    lm_release(b);
    if (rc) { lm_release(out); return NULL; }
    return out;
}

/* serves: floating */
lm_tensor *lm_cpu_conv2d(lm_tensor *input, lm_tensor *weight, lm_tensor *bias, const int64_t *stride,
                         int64_t stride_len, const int64_t *padding, int64_t padding_len, const int64_t *dilation,
                         int64_t dilation_len, int64_t groups) {
    geom G;
    if (check4d("input", input) || check4d("weight", weight)) return NULL;
    if (input->dtype != weight->dtype || (bias && bias->dtype != input->dtype)) {
        lm_set_error(LM_ERR_TYPE, "input, weight and bias must have the same dtype, got %s and %s",
                     lm_dtype_name(input->dtype), lm_dtype_name(weight->dtype));
        return NULL;
    }
    if (make_geom(&G, input->shape, weight->shape, stride, stride_len, padding, padding_len, dilation, dilation_len,
                  groups))
        return NULL;
    if (bias && (bias->ndim != 1 || bias->shape[0] != G.O)) {
        lm_set_error(LM_ERR_VALUE, "bias must have shape (%lld,), got a %dD tensor", (long long)G.O, bias->ndim);
        return NULL;
    }
    int64_t oshape[4] = {G.N, G.O, G.OH, G.OW};
    lm_tensor *out = lm_empty(4, oshape, input->dtype, input->device);
    lm_tensor *x = lm_contiguous(input), *w = lm_contiguous(weight);
    if (!out || !x || !w) return finish(out, -1, x, w);
    int rc = run_on(input->device, LM_CONV_FORWARD, &G, input->dtype, lm_bytes(x), lm_bytes(w), bias ? lm_bytes(bias) : NULL,
                         bias ? bias->strides[0] : 0, lm_bytes(out));
    return finish(out, rc, x, w);
}

static int check_size(const char *name, const int64_t *v, int64_t n) {
    if (n != 4) return lm_set_error(LM_ERR_VALUE, "%s must have 4 elements, got %lld", name, (long long)n);
    for (int k = 0; k < 4; k++)
        if (v[k] < 0) return lm_set_error(LM_ERR_VALUE, "%s must be non-negative", name);
    return 0;
}

static int check_grad(const geom *G, const lm_tensor *grad) {
    if (check4d("grad", grad)) return -1;
    if (grad->shape[0] != G->N || grad->shape[1] != G->O || grad->shape[2] != G->OH || grad->shape[3] != G->OW)
        return lm_set_error(LM_ERR_VALUE, "grad has shape [%lld, %lld, %lld, %lld], expected [%lld, %lld, %lld, %lld]",
                            (long long)grad->shape[0], (long long)grad->shape[1], (long long)grad->shape[2],
                            (long long)grad->shape[3], (long long)G->N, (long long)G->O, (long long)G->OH,
                            (long long)G->OW);
    return 0;
}

/* d input = col2im(W_g^T @ grad_g) (serves: floating) */
lm_tensor *lm_cpu_conv2d_backward_input(lm_tensor *grad, lm_tensor *weight, const int64_t *input_size,
                                        int64_t input_size_len, const int64_t *stride, int64_t stride_len,
                                        const int64_t *padding, int64_t padding_len, const int64_t *dilation,
                                        int64_t dilation_len, int64_t groups) {
    geom G;
    if (check_size("input_size", input_size, input_size_len) || check4d("weight", weight)) return NULL;
    if (make_geom(&G, input_size, weight->shape, stride, stride_len, padding, padding_len, dilation, dilation_len,
                  groups) || check_grad(&G, grad))
        return NULL;
    if (grad->dtype != weight->dtype) { lm_set_error(LM_ERR_TYPE, "grad and weight must have the same dtype"); return NULL; }
    lm_tensor *dx = lm_empty(4, input_size, grad->dtype, grad->device);
    lm_tensor *gy = lm_contiguous(grad), *w = lm_contiguous(weight);
    if (!dx || !gy || !w) return finish(dx, -1, gy, w);
    int rc = run_on(grad->device, LM_CONV_BACKWARD_INPUT, &G, grad->dtype, lm_bytes(gy), lm_bytes(w), NULL, 0, lm_bytes(dx));
    return finish(dx, rc, gy, w);
}

/* d weight_g = sum over samples of grad_g @ col^T (serves: floating) */
lm_tensor *lm_cpu_conv2d_backward_weight(lm_tensor *grad, lm_tensor *input, const int64_t *weight_size,
                                         int64_t weight_size_len, const int64_t *stride, int64_t stride_len,
                                         const int64_t *padding, int64_t padding_len, const int64_t *dilation,
                                         int64_t dilation_len, int64_t groups) {
    geom G;
    if (check_size("weight_size", weight_size, weight_size_len) || check4d("input", input)) return NULL;
    if (make_geom(&G, input->shape, weight_size, stride, stride_len, padding, padding_len, dilation, dilation_len,
                  groups) || check_grad(&G, grad))
        return NULL;
    if (grad->dtype != input->dtype) { lm_set_error(LM_ERR_TYPE, "grad and input must have the same dtype"); return NULL; }
    lm_tensor *dw = lm_empty(4, weight_size, grad->dtype, grad->device);
    lm_tensor *gy = lm_contiguous(grad), *x = lm_contiguous(input);
    if (!dw || !gy || !x) return finish(dw, -1, gy, x);
    int rc = run_on(grad->device, LM_CONV_BACKWARD_WEIGHT, &G, grad->dtype, lm_bytes(gy), lm_bytes(x), NULL, 0, lm_bytes(dw));
    return finish(dw, rc, gy, x);
}
