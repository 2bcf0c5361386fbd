/* conv2d and its two backward products, all as im2col + one GEMM per group over
 * a chunk of samples (batching the samples makes the small images of typical
 * models one big GEMM instead of many tiny ones). */
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "iter.h"
#include "gemm.h"

typedef struct {
    int64_t N, C, H, W, O, kh, kw, OH, OW, sh, sw, ph, pw, dh, dw, g, Cg, Og, K, L;
} geom;

/* int[2] arguments: one value means both (as PyTorch); empty means the fallback */
static int pair(const char *name, const int64_t *v, int64_t n, const int64_t *fallback, int64_t out[2], int64_t min) {
    if (n == 0 && fallback) { out[0] = fallback[0]; out[1] = fallback[1]; }
    else if (n == 1) out[0] = out[1] = v[0];
    else if (n == 2) { out[0] = v[0]; out[1] = v[1]; }
    else return lm_set_error(LM_ERR_VALUE, "%s must be an int or a pair of ints, got %lld values", name, (long long)n);
    if (out[0] < min || out[1] < min)
        return lm_set_error(LM_ERR_VALUE, "%s must be %s, got (%lld, %lld)", name, min ? "positive" : "non-negative",
                            (long long)out[0], (long long)out[1]);
    return 0;
}

static int make_geom(geom *G, const int64_t *in, const int64_t *wt, const int64_t *stride, int64_t stride_len,
                     const int64_t *padding, int64_t padding_len, const int64_t *dilation, int64_t dilation_len,
                     int64_t groups) {
    int64_t s[2], p[2], d[2];
    if (pair("stride", stride, stride_len, NULL, s, 1) || pair("padding", padding, padding_len, NULL, p, 0) ||
        pair("dilation", dilation, dilation_len, NULL, d, 1))
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

/* samples per chunk: keep the column buffer near 16 MB */
static int64_t chunk(const geom *G, int64_t item) {
    int64_t per = G->K * G->L * item;
    int64_t n = per ? ((int64_t)16 << 20) / per : G->N;
    return n < 1 ? 1 : (n > G->N ? G->N : n);
}

/* col (K x nb*L) <- x[n0:n0+nb, group g] (contiguous NCHW) */
#define IM2COL(T)                                                                                          \
    static void im2col_##T(const geom *G, const T *x, int64_t n0, int64_t nb, int64_t g, T *col) {        \
        int64_t cols = nb * G->L;                                                                          \
        bool par = lm_should_parallelize(G->K * cols);                                                     \
        _Pragma("omp parallel for collapse(3) if (par)")                                                   \
        for (int64_t c = 0; c < G->Cg; c++)                                                                \
            for (int64_t i = 0; i < G->kh; i++)                                                            \
                for (int64_t j = 0; j < G->kw; j++) {                                                      \
                    T *row = col + ((c * G->kh + i) * G->kw + j) * cols;                                   \
                    for (int64_t n = 0; n < nb; n++) {                                                     \
                        const T *plane = x + ((n0 + n) * G->C + g * G->Cg + c) * G->H * G->W;              \
                        T *r = row + n * G->L;                                                             \
                        for (int64_t oh = 0; oh < G->OH; oh++) {                                           \
                            int64_t ih = oh * G->sh - G->ph + i * G->dh;                                   \
                            T *rr = r + oh * G->OW;                                                        \
                            if (ih < 0 || ih >= G->H) { memset(rr, 0, sizeof(T) * (size_t)G->OW); continue; } \
                            const T *line = plane + ih * G->W;                                             \
                            if (G->sw == 1) {   /* a contiguous run between two zero margins */            \
                                int64_t off = j * G->dw - G->pw, lo = off < 0 ? -off : 0;                  \
                                int64_t hi = G->W - off < G->OW ? G->W - off : G->OW;                      \
                                if (hi < lo) hi = lo;                                                      \
                                for (int64_t ow = 0; ow < lo && ow < G->OW; ow++) rr[ow] = 0;              \
                                for (int64_t ow = lo; ow < hi; ow++) rr[ow] = line[ow + off];              \
                                for (int64_t ow = hi > lo ? hi : lo; ow < G->OW; ow++) rr[ow] = 0;         \
                                continue;                                                                  \
                            }                                                                              \
                            for (int64_t ow = 0; ow < G->OW; ow++) {                                       \
                                int64_t iw = ow * G->sw - G->pw + j * G->dw;                               \
                                rr[ow] = (iw >= 0 && iw < G->W) ? line[iw] : (T)0;                         \
                            }                                                                              \
                        }                                                                                  \
                    }                                                                                      \
                }                                                                                          \
    }                                                                                                      \
    /* dx[n0:n0+nb, group g] += col2im(col) */                                                              \
    static void col2im_##T(const geom *G, const T *col, int64_t n0, int64_t nb, int64_t g, T *dx) {       \
        int64_t cols = nb * G->L;                                                                          \
        bool par = lm_should_parallelize(G->K * cols);                                                     \
        _Pragma("omp parallel for if (par)")   /* channels write disjoint planes */                       \
        for (int64_t c = 0; c < G->Cg; c++)                                                                \
            for (int64_t i = 0; i < G->kh; i++)                                                            \
                for (int64_t j = 0; j < G->kw; j++) {                                                      \
                    const T *row = col + ((c * G->kh + i) * G->kw + j) * cols;                             \
                    for (int64_t n = 0; n < nb; n++) {                                                     \
                        T *plane = dx + ((n0 + n) * G->C + g * G->Cg + c) * G->H * G->W;                   \
                        const T *r = row + n * G->L;                                                       \
                        for (int64_t oh = 0; oh < G->OH; oh++) {                                           \
                            int64_t ih = oh * G->sh - G->ph + i * G->dh;                                   \
                            if (ih < 0 || ih >= G->H) continue;                                            \
                            T *line = plane + ih * G->W;                                                   \
                            const T *rr = r + oh * G->OW;                                                  \
                            /* the ow whose iw = ow * sw + off falls inside [0, W) */                      \
                            int64_t off = j * G->dw - G->pw;                                               \
                            int64_t lo = off < 0 ? (-off + G->sw - 1) / G->sw : 0;                         \
                            int64_t hi = (G->W - 1 - off) / G->sw + 1;                                     \
                            if (G->W - 1 - off < 0) hi = 0;                                                \
                            if (hi > G->OW) hi = G->OW;                                                    \
                            for (int64_t ow = lo; ow < hi; ow++) line[ow * G->sw + off] += rr[ow];         \
                        }                                                                                  \
                    }                                                                                      \
                }                                                                                          \
    }
IM2COL(float)
IM2COL(double)

static void im2col(int dt, const geom *G, const char *x, int64_t n0, int64_t nb, int64_t g, char *col) {
    if (dt == LM_FLOAT32) im2col_float(G, (const float *)x, n0, nb, g, (float *)col);
    else im2col_double(G, (const double *)x, n0, nb, g, (double *)col);
}

static void col2im(int dt, const geom *G, const char *col, int64_t n0, int64_t nb, int64_t g, char *dx) {
    if (dt == LM_FLOAT32) col2im_float(G, (const float *)col, n0, nb, g, (float *)dx);
    else col2im_double(G, (const double *)col, n0, nb, g, (double *)dx);
}

/* (Og x nb*L) scratch <-> out[n0:n0+nb, group g] in NCHW: the GEMM's layout to the tensor's */
static void scatter_rows(const geom *G, const char *tmp, int64_t n0, int64_t nb, int64_t g, char *out, int64_t item,
                         bool to_tensor) {
    for (int64_t o = 0; o < G->Og; o++)
        for (int64_t n = 0; n < nb; n++) {
            char *t = (char *)tmp + (o * nb * G->L + n * G->L) * item;
            char *y = out + (((n0 + n) * G->O + g * G->Og + o) * G->L) * item;
            if (to_tensor) memcpy(y, t, (size_t)(G->L * item));
            else memcpy(t, y, (size_t)(G->L * item));
        }
}

static void *scratch(size_t n) {
    void *p = lm_alloc(n);
    if (!p) lm_set_error(LM_ERR_MEMORY, "out of memory allocating %zu bytes of conv2d scratch", n);
    return p;
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
    int dt = input->dtype;
    int64_t item = (int64_t)lm_itemsize(dt);
    lm_tensor *out = lm_empty(4, oshape, dt, input->device);
    lm_tensor *x = lm_contiguous(input), *w = lm_contiguous(weight);
    int64_t nbmax = chunk(&G, item);
    char *col = scratch((size_t)((G.K * nbmax * G.L + 1) * item)), *tmp = scratch((size_t)((G.Og * nbmax * G.L + 1) * item));
    if (!out || !x || !w || !col || !tmp) goto fail;
    void *gil = lm_should_parallelize(G.N * G.L * G.K * G.O / 16) ? lm_gil_release() : NULL;
    for (int64_t n0 = 0; n0 < G.N; n0 += nbmax) {
        int64_t nb = G.N - n0 < nbmax ? G.N - n0 : nbmax;
        for (int64_t g = 0; g < G.g; g++) {
            im2col(dt, &G, lm_bytes(x), n0, nb, g, col);
            lm_mat a = {lm_bytes(w) + g * G.Og * G.K * item, G.K, 1}, b = {col, nb * G.L, 1};
            lm_gemm(dt, G.Og, nb * G.L, G.K, a, b, tmp, nb * G.L, false);
            scatter_rows(&G, tmp, n0, nb, g, lm_bytes(out), item, true);
        }
    }
    if (bias) {
        const char *bp = lm_bytes(bias);
        LM_DISPATCH(dt, T, ,
            T *o = (T *)lm_bytes(out);
            for (int64_t n = 0; n < G.N; n++)
                for (int64_t c = 0; c < G.O; c++) {
                    T bv = *(const T *)(bp + c * bias->strides[0] * item);
                    T *p = o + (n * G.O + c) * G.L;
                    for (int64_t l = 0; l < G.L; l++) p[l] += bv;
                })
    }
    lm_gil_reacquire(gil);
    lm_free(col, (size_t)((G.K * nbmax * G.L + 1) * item));
    lm_free(tmp, (size_t)((G.Og * nbmax * G.L + 1) * item));
    lm_release(x);
    lm_release(w);
    return out;
fail:
    if (col) lm_free(col, (size_t)((G.K * nbmax * G.L + 1) * item));
    if (tmp) lm_free(tmp, (size_t)((G.Og * nbmax * G.L + 1) * item));
    lm_release(out); lm_release(x); lm_release(w);
    return NULL;
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
    int dt = grad->dtype;
    int64_t item = (int64_t)lm_itemsize(dt);
    lm_tensor *dx = lm_empty(4, input_size, dt, grad->device);
    lm_tensor *gy = lm_contiguous(grad), *w = lm_contiguous(weight);
    int64_t nbmax = chunk(&G, item);
    char *col = scratch((size_t)((G.K * nbmax * G.L + 1) * item)), *tmp = scratch((size_t)((G.Og * nbmax * G.L + 1) * item));
    if (!dx || !gy || !w || !col || !tmp) goto fail;
    memset(lm_bytes(dx), 0, (size_t)(lm_numel(dx) * item));
    void *gil = lm_should_parallelize(G.N * G.L * G.K * G.O / 16) ? lm_gil_release() : NULL;
    for (int64_t n0 = 0; n0 < G.N; n0 += nbmax) {
        int64_t nb = G.N - n0 < nbmax ? G.N - n0 : nbmax;
        for (int64_t g = 0; g < G.g; g++) {
            scatter_rows(&G, tmp, n0, nb, g, lm_bytes(gy), item, false);
            lm_mat a = {lm_bytes(w) + g * G.Og * G.K * item, 1, G.K}, b = {tmp, nb * G.L, 1};   /* W_g^T: K x Og */
            lm_gemm(dt, G.K, nb * G.L, G.Og, a, b, col, nb * G.L, false);
            col2im(dt, &G, col, n0, nb, g, lm_bytes(dx));
        }
    }
    lm_gil_reacquire(gil);
    lm_free(col, (size_t)((G.K * nbmax * G.L + 1) * item));
    lm_free(tmp, (size_t)((G.Og * nbmax * G.L + 1) * item));
    lm_release(gy); lm_release(w);
    return dx;
fail:
    if (col) lm_free(col, (size_t)((G.K * nbmax * G.L + 1) * item));
    if (tmp) lm_free(tmp, (size_t)((G.Og * nbmax * G.L + 1) * item));
    lm_release(dx); lm_release(gy); lm_release(w);
    return NULL;
}

/* d weight_g = sum over chunks of grad_g @ col^T (serves: floating) */
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
    int dt = grad->dtype;
    int64_t item = (int64_t)lm_itemsize(dt);
    lm_tensor *dw = lm_empty(4, weight_size, dt, grad->device);
    lm_tensor *gy = lm_contiguous(grad), *x = lm_contiguous(input);
    int64_t nbmax = chunk(&G, item);
    char *col = scratch((size_t)((G.K * nbmax * G.L + 1) * item)), *tmp = scratch((size_t)((G.Og * nbmax * G.L + 1) * item));
    if (!dw || !gy || !x || !col || !tmp) goto fail;
    memset(lm_bytes(dw), 0, (size_t)(lm_numel(dw) * item));
    void *gil = lm_should_parallelize(G.N * G.L * G.K * G.O / 16) ? lm_gil_release() : NULL;
    for (int64_t n0 = 0; n0 < G.N; n0 += nbmax) {
        int64_t nb = G.N - n0 < nbmax ? G.N - n0 : nbmax;
        for (int64_t g = 0; g < G.g; g++) {
            im2col(dt, &G, lm_bytes(x), n0, nb, g, col);
            scatter_rows(&G, tmp, n0, nb, g, lm_bytes(gy), item, false);
            lm_mat a = {tmp, nb * G.L, 1}, b = {col, 1, nb * G.L};   /* col^T: nb*L x K */
            lm_gemm(dt, G.Og, G.K, nb * G.L, a, b, lm_bytes(dw) + g * G.Og * G.K * item, G.K, true);
        }
    }
    lm_gil_reacquire(gil);
    lm_free(col, (size_t)((G.K * nbmax * G.L + 1) * item));
    lm_free(tmp, (size_t)((G.Og * nbmax * G.L + 1) * item));
    lm_release(gy); lm_release(x);
    return dw;
fail:
    if (col) lm_free(col, (size_t)((G.K * nbmax * G.L + 1) * item));
    if (tmp) lm_free(tmp, (size_t)((G.Og * nbmax * G.L + 1) * item));
    lm_release(dw); lm_release(gy); lm_release(x);
    return NULL;
}
