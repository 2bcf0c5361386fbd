/* linear: input (..., in) @ weight(out, in)^T + bias, one GEMM over all leading dims. */
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "iter.h"
#include "alloc.h"
#include "gemm.h"
#include "half_block.h"

/* float16/bfloat16 on the CPU, PyTorch's opmath: the product and the bias in float32 (lm_gemm_half
 * converts the operands as it packs them: no float32 copies), one rounding into out */
static int linear_half(const lm_mat *a, const lm_mat *w, const lm_tensor *bias, lm_tensor *out, int64_t M, int64_t N,
                       int64_t K) {
    int dt = out->dtype;
    float *acc = lm_half_scratch(M * N);
    if (!acc) return -1;
    if (bias) {   /* rows start as the bias, then the product accumulates onto them */
        const char *b = lm_bytes(bias);
        int64_t bs = bias->ndim ? bias->strides[0] : 0;
        for (int64_t j = 0; j < N; j++) acc[j] = lm_half_at(dt, b, j * bs);
        for (int64_t i = 1; i < M; i++) memcpy(acc + i * N, acc, (size_t)N * sizeof(float));
    }
    void *gil = lm_should_parallelize(M * N * K / 16) ? lm_gil_release() : NULL;
    int err = 0;
    if (K > 0 || !bias) err = lm_gemm_half(dt, M, N, K, *a, *w, acc, N, bias != NULL);
    if (!err) lm_half_round_into(dt, acc, lm_bytes(out), M * N);
    lm_gil_reacquire(gil);
    free(acc);
    return err;
}

/* any device: the product through lm_gemm_on, the bias broadcast by a copy */
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
    if (M == 0 || N == 0) { lm_release(x); return out; }   /* an empty batch (or no features): nothing to write */
    int64_t item = (int64_t)lm_itemsize(input->dtype);
    char *o = lm_bytes(out);
    lm_mat a = {lm_bytes(x), x->ndim == 2 ? x->strides[0] : K, x->ndim == 2 ? x->strides[1] : 1};
    lm_mat w = {lm_bytes(weight), weight->strides[1], weight->strides[0]};   /* weight^T: K x N */
    if (out->device == LM_CPU && lm_is_half(input->dtype)) {
        int err = linear_half(&a, &w, bias, out, M, N, K);
        lm_release(x);
        if (err) { lm_release(out); return NULL; }
        return out;
    }
    if (bias && out->device != LM_CPU) {   /* rows start as the bias: a broadcasting copy */
        int64_t sh[2] = {M, N}, st[2] = {N, 1};
        lm_tensor *rows = lm_view(out, 2, sh, st, out->offset);
        int err = !rows || lm_copy_into(rows, bias);
        lm_release(rows);
        if (err) { lm_release(x); lm_release(out); return NULL; }
    } else if (bias) {   /* rows start as the bias, then the product accumulates onto them */
        const char *b = lm_bytes(bias);
        int64_t bs = bias->ndim ? bias->strides[0] : 0;
        for (int64_t j = 0; j < N; j++) memcpy(o + j * item, b + j * bs * item, (size_t)item);
        for (int64_t i = 1; i < M; i++) memcpy(o + i * N * item, o, (size_t)(N * item));
    }
    void *gil = lm_should_parallelize(M * N * K / 16) ? lm_gil_release() : NULL;
    int err = 0;
    if (K > 0) err = lm_gemm_on(input->device, input->dtype, M, N, K, a, w, o, N, bias != NULL);
    else if (!bias) lm_allocator_for(out->device)->zero(o, (size_t)(M * N * item));
    lm_gil_reacquire(gil);
    lm_release(x);
    if (err) { lm_release(out); return NULL; }
    return out;
}

/* rows of `t` over every leading dim as an (M x last) matrix: in place when 2-D, else a contiguous copy */
static lm_tensor *as_rows(lm_tensor *t, lm_mat *m) {
    lm_tensor *c = t->ndim == 2 ? (lm_retain(t), t) : lm_contiguous(t);
    if (!c) return NULL;
    int64_t last = t->shape[t->ndim - 1];
    *m = (lm_mat){lm_bytes(c), c->ndim == 2 ? c->strides[0] : last, c->ndim == 2 ? c->strides[1] : 1};
    return c;
}

#define BIAS_BLOCK 128   /* rows summed into a partial before it joins the total: error ~ (128 + M/128) ulp */
#define ID(x) (x)
#define SUM_ROWS(NAME, S, T, CVT)                                                                                 \
    static void sum_rows_##NAME(lm_mat g, int64_t M, int64_t O, T *out) {                                         \
        const S *p = (const S *)g.p;                                                                              \
        for (int64_t o = 0; o < O; o++) out[o] = 0;                                                               \
        T part[256];                                                                                              \
        for (int64_t o0 = 0; o0 < O; o0 += 256) {                                                                 \
            int64_t no = O - o0 < 256 ? O - o0 : 256;                                                             \
            for (int64_t r0 = 0; r0 < M; r0 += BIAS_BLOCK) {                                                      \
                int64_t r1 = r0 + BIAS_BLOCK < M ? r0 + BIAS_BLOCK : M;                                           \
                for (int64_t o = 0; o < no; o++) part[o] = 0;                                                     \
                for (int64_t r = r0; r < r1; r++)                                                                 \
                    for (int64_t o = 0; o < no; o++) part[o] += CVT(p[r * g.rs + (o0 + o) * g.cs]);               \
                for (int64_t o = 0; o < no; o++) out[o0 + o] += part[o];                                          \
            }                                                                                                     \
        }                                                                                                         \
    }
SUM_ROWS(float, float, float, ID)
SUM_ROWS(double, double, double, ID)
SUM_ROWS(bfloat16, lm_bfloat16, float, lm_bfloat16_to_float)
SUM_ROWS(float16, lm_float16, float, lm_float16_to_float)

/* rows of a 16-bit gradient with unit column stride: each row's run converted as a block (F16C where the
 * host has it; half.h's element conversion took 8% of a float16 MLP step), the same sums in the same order */
#define SUM_ROWS_BLOCKS(NAME, S)                                                                                 \
    static void sum_rows_blocks_##NAME(lm_mat g, int64_t M, int64_t O, float *out) {                             \
        const S *p = (const S *)g.p;                                                                              \
        float part[256], row[256];                                                                                \
        for (int64_t o = 0; o < O; o++) out[o] = 0;                                                               \
        for (int64_t o0 = 0; o0 < O; o0 += 256) {                                                                 \
            int64_t no = O - o0 < 256 ? O - o0 : 256;                                                             \
            for (int64_t r0 = 0; r0 < M; r0 += BIAS_BLOCK) {                                                      \
                int64_t r1 = r0 + BIAS_BLOCK < M ? r0 + BIAS_BLOCK : M;                                           \
                for (int64_t o = 0; o < no; o++) part[o] = 0;                                                     \
                for (int64_t r = r0; r < r1; r++) {                                                               \
                    lm_load_block_##NAME(p + r * g.rs + o0, row, no);                                             \
                    for (int64_t o = 0; o < no; o++) part[o] += row[o];                                           \
                }                                                                                                 \
                for (int64_t o = 0; o < no; o++) out[o0 + o] += part[o];                                          \
            }                                                                                                     \
        }                                                                                                         \
    }
SUM_ROWS_BLOCKS(bfloat16, lm_bfloat16)
SUM_ROWS_BLOCKS(float16, lm_float16)

/* linear_backward's float16/bfloat16 gradients on the CPU: each in float32 as the float32 path computes
 * them from the converted operands (the same products and sums, to the bit), rounded once into out */
static int backward_half(int dt, lm_mat g, lm_mat x, lm_mat w, int64_t M, int64_t O, int64_t I, bool input_grad,
                         bool weight_grad, bool bias_grad, lm_tensor **out) {
    int64_t most = M * I > O * I ? M * I : O * I;
    float *acc = lm_half_scratch(most > O ? most : O);
    if (!acc) return -1;
    int err = 0;
    if (input_grad && !(err = lm_gemm_half(dt, M, I, O, g, w, acc, I, false)))
        lm_half_round_into(dt, acc, lm_bytes(out[0]), M * I);
    if (weight_grad && !err && !(err = lm_gemm_half(dt, O, I, M, (lm_mat){g.p, g.cs, g.rs}, x, acc, I, false)))
        lm_half_round_into(dt, acc, lm_bytes(out[1]), O * I);
    if (bias_grad && !err) {
        if (g.cs == 1 && dt == LM_BFLOAT16) sum_rows_blocks_bfloat16(g, M, O, acc);
        else if (g.cs == 1) sum_rows_blocks_float16(g, M, O, acc);
        else if (dt == LM_BFLOAT16) sum_rows_bfloat16(g, M, O, acc);
        else sum_rows_float16(g, M, O, acc);
        lm_half_round_into(dt, acc, lm_bytes(out[2]), O);
    }
    free(acc);
    return err;
}

/* linear's three gradients in one call, over the rows of every leading dim:
 * d input = grad @ weight, d weight = grad^T @ input, d bias = grad summed over
 * the rows. An output not asked for is an empty tensor. The formulas took three
 * ops (and their Python) for this, a few us each in a small MLP's step. */
/* the bias gradient on a device: ones(M) @ grad rows, one more product */
static int sum_rows_on(int device, int dt, lm_mat g, int64_t M, int64_t O, char *out) {
    lm_tensor *ones = lm_empty(1, &M, dt, device), *one = lm_scalar_tensor((lm_scalar){1, 1, 2}, dt, false);
    int err = !ones || !one || lm_copy_into(ones, one) ||
              lm_gemm_on(device, dt, 1, O, M, (lm_mat){lm_bytes(ones), M, 1}, g, out, O, false);
    lm_release(ones);
    lm_release(one);
    return err ? -1 : 0;
}

int lm_cpu_linear_backward(lm_tensor *grad, lm_tensor *input, lm_tensor *weight, bool input_grad, bool weight_grad,
                           bool bias_grad, lm_tensor **out) {
    if (weight->ndim != 2)
        return lm_set_error(LM_ERR_VALUE, "weight must be 2-D (out_features, in_features), got %dD", weight->ndim);
    int64_t O = weight->shape[0], I = weight->shape[1];
    if (input->ndim < 1 || input->shape[input->ndim - 1] != I)
        return lm_set_error(LM_ERR_VALUE, "input must end in in_features (%lld) of weight", (long long)I);
    bool match = grad->ndim == input->ndim && grad->shape[grad->ndim - 1] == O;
    for (int d = 0; match && d < input->ndim - 1; d++) match = grad->shape[d] == input->shape[d];
    if (!match) {
        char a[256], b[256];
        lm_format_shape(a, sizeof a, grad->ndim, grad->shape);
        lm_format_shape(b, sizeof b, input->ndim, input->shape);
        return lm_set_error(LM_ERR_VALUE, "grad_output of shape %s does not match input of shape %s and %lld "
                            "out_features", a, b, (long long)O);
    }
    if (grad->dtype != input->dtype || weight->dtype != input->dtype)
        return lm_set_error(LM_ERR_TYPE, "expected grad_output, input and weight to have the same dtype, but got %s, "
                            "%s and %s", lm_dtype_name(grad->dtype), lm_dtype_name(input->dtype),
                            lm_dtype_name(weight->dtype));
    int dt = input->dtype;
    int64_t M = 1, none = 0, wshape[2] = {O, I};
    for (int d = 0; d < input->ndim - 1; d++) M *= input->shape[d];
    out[0] = input_grad ? lm_empty(input->ndim, input->shape, dt, input->device) : lm_empty(1, &none, dt, input->device);
    out[1] = lm_empty(weight_grad ? 2 : 1, weight_grad ? wshape : &none, dt, input->device);
    out[2] = lm_empty(1, bias_grad ? &O : &none, dt, input->device);
    lm_mat g, x = {NULL, 0, 0};
    lm_tensor *gc = as_rows(grad, &g), *xc = weight_grad ? as_rows(input, &x) : NULL;
    if (!out[0] || !out[1] || !out[2] || !gc || (weight_grad && !xc)) {
        for (int k = 0; k < 3; k++) { lm_release(out[k]); out[k] = NULL; }
        lm_release(gc);
        lm_release(xc);
        return -1;
    }
    size_t item = lm_itemsize(dt);
    void *gil = lm_should_parallelize(M * O * I / 16) ? lm_gil_release() : NULL;
    int dev = input->device, err = 0;
    const lm_allocator *mem = lm_allocator_for(dev);
    lm_mat w = {lm_bytes(weight), weight->strides[0], weight->strides[1]};
    if (dev == LM_CPU && lm_is_half(dt)) {
        err = backward_half(dt, g, x, w, M, O, I, input_grad, weight_grad, bias_grad, out);
        input_grad = weight_grad = bias_grad = false;   /* done */
    }
    if (input_grad) {   /* (M x I) = grad (M x O) @ weight (O x I) */
        if (O > 0) err = lm_gemm_on(dev, dt, M, I, O, g, w, lm_bytes(out[0]), I, false);
        else mem->zero(lm_bytes(out[0]), (size_t)(M * I) * item);
    }
    if (weight_grad && !err) {   /* (O x I) = grad^T (O x M) @ input (M x I) */
        if (M > 0) err = lm_gemm_on(dev, dt, O, I, M, (lm_mat){g.p, g.cs, g.rs}, x, lm_bytes(out[1]), I, false);
        else mem->zero(lm_bytes(out[1]), (size_t)(O * I) * item);
    }
    if (bias_grad && !err) {
        if (dev != LM_CPU && M > 0) err = sum_rows_on(dev, dt, g, M, O, lm_bytes(out[2]));
        else if (dev != LM_CPU) mem->zero(lm_bytes(out[2]), (size_t)O * item);
        else if (dt == LM_FLOAT32) sum_rows_float(g, M, O, (float *)lm_bytes(out[2]));
        else sum_rows_double(g, M, O, (double *)lm_bytes(out[2]));
    }
    lm_gil_reacquire(gil);
    lm_release(gc);
    lm_release(xc);
    if (err) {
        for (int k = 0; k < 3; k++) { lm_release(out[k]); out[k] = NULL; }
        return -1;
    }
    return 0;
}
