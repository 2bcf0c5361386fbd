/* _batch_norm_train (training: batch statistics) and its backward, one channel at a time: a
 * channel's N planes (64 KB at DCGAN's 16x32x32x32) stay in L2 across the kernel's passes, where
 * the composite's dozen ops each streamed the whole tensor and built a graph of as many nodes.
 * Channels split over threads. The sums vectorise through GCC's vector extensions (the build has
 * no -ffast-math, so a plain reduction loop stays scalar); each plane's partial sum goes into
 * a double. */
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "norms.h"
#include "parallel.h"

typedef struct {
    int64_t N, C, P;   /* input viewed as (N, C, P) */
    double eps;
    const char *x, *w, *b, *dy;
    char *y, *mean, *invstd, *dx, *dw, *db;
} bn;

/* 64-byte vectors: one AVX-512 register, two AVX ones */
typedef float vf __attribute__((vector_size(64), aligned(4)));
typedef double vd __attribute__((vector_size(64), aligned(8)));

#define BN_KERNELS(T, V)                                                                                         \
    enum { W_##T = (int)(sizeof(V) / sizeof(T)) };                                                               \
    static double sum_##T(const T *x, int64_t n) {                                                               \
        V a = {0}, b = {0};                                                                                       \
        int64_t j = 0;                                                                                            \
        for (; j + 2 * W_##T <= n; j += 2 * W_##T) {                                                            \
            a += *(const V *)(x + j);                                                                             \
            b += *(const V *)(x + j + W_##T);                                                                     \
        }                                                                                                         \
        a += b;                                                                                                   \
        double s = 0;                                                                                             \
        for (int k = 0; k < W_##T; k++) s += a[k];                                                               \
        for (; j < n; j++) s += x[j];                                                                             \
        return s;                                                                                                 \
    }                                                                                                             \
    /* sum of (x - m)^2 */                                                                                        \
    static double ssq_##T(const T *x, int64_t n, T m) {                                                          \
        V a = {0}, b = {0};                                                                                       \
        int64_t j = 0;                                                                                            \
        for (; j + 2 * W_##T <= n; j += 2 * W_##T) {                                                            \
            V u = *(const V *)(x + j) - m, v = *(const V *)(x + j + W_##T) - m;                                   \
            a += u * u;                                                                                           \
            b += v * v;                                                                                           \
        }                                                                                                         \
        a += b;                                                                                                   \
        double s = 0;                                                                                             \
        for (int k = 0; k < W_##T; k++) s += a[k];                                                               \
        for (; j < n; j++) s += ((double)x[j] - m) * ((double)x[j] - m);                                          \
        return s;                                                                                                 \
    }                                                                                                             \
    /* (sum of g, sum of g * (x - m)) */                                                                          \
    static void gsums_##T(const T *g, const T *x, int64_t n, T m, double *sg, double *sgx) {                     \
        V a = {0}, b = {0};                                                                                       \
        int64_t j = 0;                                                                                            \
        for (; j + W_##T <= n; j += W_##T) {                                                                     \
            V gv = *(const V *)(g + j);                                                                           \
            a += gv;                                                                                              \
            b += gv * (*(const V *)(x + j) - m);                                                                  \
        }                                                                                                         \
        double s = 0, t = 0;                                                                                      \
        for (int k = 0; k < W_##T; k++) {                                                                         \
            s += a[k];                                                                                            \
            t += b[k];                                                                                            \
        }                                                                                                         \
        for (; j < n; j++) {                                                                                      \
            s += g[j];                                                                                            \
            t += (double)g[j] * ((double)x[j] - m);                                                               \
        }                                                                                                         \
        *sg += s;                                                                                                 \
        *sgx += t;                                                                                                \
    }                                                                                                             \
    static void forward_##T(int64_t lo, int64_t hi, void *vs) {                                                  \
        const bn *S = vs;                                                                                         \
        int64_t N = S->N, C = S->C, P = S->P;                                                                     \
        double cnt = (double)(N * P);                                                                             \
        for (int64_t c = lo; c < hi; c++) {                                                                       \
            double s = 0, q = 0;                                                                                  \
            for (int64_t n = 0; n < N; n++) s += sum_##T((const T *)S->x + (n * C + c) * P, P);                  \
            T m = (T)(s / cnt);                                                                                   \
            for (int64_t n = 0; n < N; n++) q += ssq_##T((const T *)S->x + (n * C + c) * P, P, m);              \
            double rs = 1 / __builtin_sqrt(q / cnt + S->eps);                                                     \
            T k = (T)rs;                                                                                          \
            T sc = S->w ? (T)(rs * ((const T *)S->w)[c]) : k;                                                     \
            T sh = (S->b ? ((const T *)S->b)[c] : (T)0) - m * sc;                                                 \
            for (int64_t n = 0; n < N; n++) {                                                                     \
                const T *x = (const T *)S->x + (n * C + c) * P;                                                  \
                T *y = (T *)S->y + (n * C + c) * P;                                                               \
                for (int64_t j = 0; j < P; j++) y[j] = x[j] * sc + sh;                                            \
            }                                                                                                     \
            ((T *)S->mean)[c] = m;                                                                                \
            ((T *)S->invstd)[c] = k;                                                                              \
        }                                                                                                         \
    }                                                                                                             \
    static void backward_##T(int64_t lo, int64_t hi, void *vs) {                                                 \
        const bn *S = vs;                                                                                         \
        int64_t N = S->N, C = S->C, P = S->P;                                                                     \
        double cnt = (double)(N * P);                                                                             \
        for (int64_t c = lo; c < hi; c++) {                                                                       \
            T m = ((const T *)S->mean)[c], k = ((const T *)S->invstd)[c];                                        \
            double sg = 0, sgx = 0;                                                                               \
            for (int64_t n = 0; n < N; n++)                                                                       \
                gsums_##T((const T *)S->dy + (n * C + c) * P, (const T *)S->x + (n * C + c) * P, P, m, &sg, &sgx); \
            if (S->dw) ((T *)S->dw)[c] = (T)(sgx * k);                                                            \
            if (S->db) ((T *)S->db)[c] = (T)sg;                                                                   \
            if (!S->dx) continue;                                                                                 \
            /* dx = w k (dy - sg / cnt - (x - m) k^2 sgx / cnt) = a dy + b x + e */                               \
            double wk = (S->w ? ((const T *)S->w)[c] : 1) * (double)k;                                            \
            double bx = -wk * (double)k * (double)k * sgx / cnt;                                                  \
            T a = (T)wk, b = (T)bx, e = (T)(-wk * sg / cnt - bx * (double)m);                                      \
            for (int64_t n = 0; n < N; n++) {                                                                     \
                const T *x = (const T *)S->x + (n * C + c) * P, *g = (const T *)S->dy + (n * C + c) * P;         \
                T *dx = (T *)S->dx + (n * C + c) * P;                                                             \
                for (int64_t j = 0; j < P; j++) dx[j] = a * g[j] + b * x[j] + e;                                  \
            }                                                                                                     \
        }                                                                                                         \
    }
BN_KERNELS(float, vf)
BN_KERNELS(double, vd)

static int check(const char *op, lm_tensor *input, lm_tensor *weight, lm_tensor *bias, int64_t *N, int64_t *C,
                 int64_t *P) {
    if (input->ndim < 2)
        return lm_set_error(LM_ERR_VALUE, "%s: expected a 2-D or more input (N, C, ...), got %d-D", op, input->ndim);
    if (input->dtype != LM_FLOAT32 && input->dtype != LM_FLOAT64)
        return lm_set_error(LM_ERR_TYPE, "%s: not implemented for '%s'", op, lm_dtype_name(input->dtype));
    *N = input->shape[0];
    *C = input->shape[1];
    *P = 1;
    for (int d = 2; d < input->ndim; d++) *P *= input->shape[d];
    lm_tensor *wb[2] = {weight, bias};
    for (int i = 0; i < 2; i++) {
        if (!wb[i]) continue;
        if (wb[i]->dtype != input->dtype)
            return lm_set_error(LM_ERR_TYPE, "%s: expected %s to have the input's dtype %s, got %s", op,
                                i ? "bias" : "weight", lm_dtype_name(input->dtype), lm_dtype_name(wb[i]->dtype));
        if (wb[i]->ndim != 1 || wb[i]->shape[0] != *C)
            return lm_set_error(LM_ERR_VALUE, "%s: %s should contain %lld elements", op, i ? "bias" : "weight",
                                (long long)*C);
    }
    return 0;
}

int lm_batch_norm_train_check(lm_tensor *input, lm_tensor *weight, lm_tensor *bias, int64_t *N, int64_t *C,
                              int64_t *P) {
    if (check("_batch_norm_train", input, weight, bias, N, C, P)) return -1;
    if (*N * *P < 2)
        return lm_set_error(LM_ERR_VALUE, "_batch_norm_train: expected more than 1 value per channel when training");
    return 0;
}

int lm_batch_norm_backward_check(lm_tensor *grad_out, lm_tensor *input, lm_tensor *mean, lm_tensor *invstd,
                                 lm_tensor *weight, int64_t *N, int64_t *C, int64_t *P) {
    if (check("_batch_norm_train_backward", input, weight, NULL, N, C, P)) return -1;
    if (!lm_same_shape(grad_out, input) || grad_out->dtype != input->dtype)
        return lm_set_error(LM_ERR_VALUE, "_batch_norm_train_backward: grad_out must have the input's shape and dtype");
    if (lm_numel(mean) != *C || lm_numel(invstd) != *C || mean->dtype != input->dtype || invstd->dtype != input->dtype)
        return lm_set_error(LM_ERR_VALUE, "_batch_norm_train_backward: mean and invstd must hold one %s per channel (%lld)",
                            lm_dtype_name(input->dtype), (long long)*C);
    return 0;
}

int lm_contiguous_each(lm_tensor **ts, lm_tensor **k, int n) {
    for (int i = 0; i < n; i++)
        if (ts[i] && !(k[i] = lm_contiguous(ts[i]))) {
            while (i-- > 0) if (k[i]) lm_release(k[i]);
            return -1;
        }
    return 0;
}

int lm_cpu__batch_norm_train(lm_tensor *input, lm_tensor *weight, lm_tensor *bias, double eps, lm_tensor **out) {
    int64_t N = 0, C = 0, P = 0;
    if (lm_batch_norm_train_check(input, weight, bias, &N, &C, &P)) return -1;
    lm_tensor *in[3] = {input, weight, bias}, *k[3] = {0};
    if (lm_contiguous_each(in, k, 3)) return -1;
    lm_tensor *y = lm_empty(input->ndim, input->shape, input->dtype, LM_CPU);
    lm_tensor *mean = y ? lm_empty(1, &C, input->dtype, LM_CPU) : NULL;
    lm_tensor *invstd = mean ? lm_empty(1, &C, input->dtype, LM_CPU) : NULL;
    if (invstd) {
        bn S = {N, C, P, eps, lm_bytes(k[0]), k[1] ? lm_bytes(k[1]) : NULL, k[2] ? lm_bytes(k[2]) : NULL, NULL,
                lm_bytes(y), lm_bytes(mean), lm_bytes(invstd), NULL, NULL, NULL};
        lm_parallel_for(C, N * C * P, input->dtype == LM_FLOAT32 ? forward_float : forward_double, &S);
    }
    for (int i = 0; i < 3; i++) if (k[i]) lm_release(k[i]);
    if (!invstd) {
        if (y) lm_release(y);
        if (mean) lm_release(mean);
        return -1;
    }
    out[0] = y;
    out[1] = mean;
    out[2] = invstd;
    return 0;
}

int lm_cpu__batch_norm_train_backward(lm_tensor *grad_out, lm_tensor *input, lm_tensor *mean, lm_tensor *invstd,
                                      lm_tensor *weight, bool input_grad, bool weight_grad, bool bias_grad,
                                      lm_tensor **out) {
    int64_t N = 0, C = 0, P = 0, none = 0;
    if (lm_batch_norm_backward_check(grad_out, input, mean, invstd, weight, &N, &C, &P)) return -1;
    int dt = input->dtype;
    lm_tensor *in[5] = {grad_out, input, mean, invstd, weight}, *k[5] = {0};
    if (lm_contiguous_each(in, k, 5)) return -1;
    lm_tensor *res[3] = {input_grad ? lm_empty(input->ndim, input->shape, dt, LM_CPU) : lm_empty(1, &none, dt, LM_CPU),
                         lm_empty(1, weight_grad ? &C : &none, dt, LM_CPU),
                         lm_empty(1, bias_grad ? &C : &none, dt, LM_CPU)};
    int err = !res[0] || !res[1] || !res[2];
    if (!err) {
        bn S = {N, C, P, 0, lm_bytes(k[1]), k[4] ? lm_bytes(k[4]) : NULL, NULL, lm_bytes(k[0]), NULL,
                lm_bytes(k[2]), (char *)lm_bytes(k[3]), input_grad ? lm_bytes(res[0]) : NULL,
                weight_grad ? lm_bytes(res[1]) : NULL, bias_grad ? lm_bytes(res[2]) : NULL};
        lm_parallel_for(C, N * C * P, dt == LM_FLOAT32 ? backward_float : backward_double, &S);
    }
    for (int i = 0; i < 5; i++) if (k[i]) lm_release(k[i]);
    if (err) {
        for (int i = 0; i < 3; i++) if (res[i]) lm_release(res[i]);
        return lm_set_error(LM_ERR_MEMORY, "_batch_norm_train_backward: out of memory");
    }
    for (int i = 0; i < 3; i++) out[i] = res[i];
    return 0;
}
