/* native_layer_norm and its backward, one pass over each row (PyTorch's CPU kernels' contract):
 * the rows are the leading dims, the normalised part the trailing N elements. The forward keeps
 * each row's mean and 1/sqrt(var + eps) for the backward, which gives d input, d weight and d bias
 * in one sweep instead of the twenty-odd ops of the composite's graph. Sums run in double. */
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "norms.h"
#include "parallel.h"

int lm_layer_norm_rows(const char *op, lm_tensor *input, const int64_t *ns, int64_t n, lm_tensor *weight,
                      lm_tensor *bias, int64_t *M, int64_t *N) {
    if (n < 1 || n > input->ndim)
        return lm_set_error(LM_ERR_VALUE, "%s: normalized_shape must name 1 to %d trailing dims, got %lld", op,
                            input->ndim, (long long)n);
    *N = 1;
    for (int64_t d = 0; d < n; d++) {
        if (input->shape[input->ndim - n + d] != ns[d])
            return lm_set_error(LM_ERR_VALUE, "%s: normalized_shape does not match the input's trailing dims", op);
        *N *= ns[d];
    }
    *M = 1;
    for (int64_t d = 0; d < input->ndim - n; d++) *M *= input->shape[d];
    lm_tensor *wb[2] = {weight, bias};
    for (int i = 0; i < 2; i++) {
        if (!wb[i]) continue;
        if (wb[i]->dtype != input->dtype)
            return lm_set_error(LM_ERR_TYPE, "%s: expected %s to have the input's dtype %s, got %s", op,
                                i ? "bias" : "weight", lm_dtype_name(input->dtype), lm_dtype_name(wb[i]->dtype));
        if (wb[i]->ndim != n || memcmp(wb[i]->shape, ns, sizeof(int64_t) * (size_t)n))
            return lm_set_error(LM_ERR_VALUE, "%s: %s must have the shape normalized_shape", op, i ? "bias" : "weight");
    }
    if (input->dtype != LM_FLOAT32 && input->dtype != LM_FLOAT64)
        return lm_set_error(LM_ERR_TYPE, "%s: not implemented for '%s'", op, lm_dtype_name(input->dtype));
    return 0;
}

/* the row-statistics shape: input's leading dims, then n ones */
static lm_tensor *stats_tensor(lm_tensor *input, int64_t n) {
    int64_t sh[LM_MAX_DIMS];
    for (int d = 0; d < input->ndim; d++) sh[d] = d < input->ndim - n ? input->shape[d] : 1;
    return lm_empty(input->ndim, sh, input->dtype, LM_CPU);
}

typedef struct {
    int64_t M, N;
    double eps;
    const char *x, *w, *b, *dy;
    char *y, *mean, *rstd, *dx;
    double *dwb;   /* backward: per part, N sums for d weight then N for d bias */
} ln;

#define LN_FORWARD(T)                                                                                            \
    static void forward_##T(int64_t lo, int64_t hi, void *vs) {                                                  \
        const ln *S = vs;                                                                                         \
        const T *w = (const T *)S->w, *b = (const T *)S->b;                                                      \
        for (int64_t r = lo; r < hi; r++) {                                                                       \
            const T *x = (const T *)S->x + r * S->N;                                                             \
            T *y = (T *)S->y + r * S->N;                                                                          \
            double s = 0, q = 0;                                                                                  \
            for (int64_t j = 0; j < S->N; j++) s += x[j];                                                         \
            double mu = s / (double)S->N;                                                                         \
            for (int64_t j = 0; j < S->N; j++) q += ((double)x[j] - mu) * ((double)x[j] - mu);                    \
            double rs = 1 / __builtin_sqrt(q / (double)S->N + S->eps);                                            \
            T m = (T)mu, k = (T)rs;                                                                               \
            for (int64_t j = 0; j < S->N; j++) {                                                                  \
                T v = (x[j] - m) * k;                                                                             \
                if (w) v *= w[j];                                                                                 \
                if (b) v += b[j];                                                                                 \
                y[j] = v;                                                                                         \
            }                                                                                                     \
            ((T *)S->mean)[r] = m;                                                                                \
            ((T *)S->rstd)[r] = k;                                                                                \
        }                                                                                                         \
    }
LN_FORWARD(float)
LN_FORWARD(double)

int lm_cpu_native_layer_norm(lm_tensor *input, const int64_t *normalized_shape, int64_t normalized_shape_len,
                             lm_tensor *weight, lm_tensor *bias, double eps, lm_tensor **out) {
    int64_t M, N, n = normalized_shape_len;
    if (lm_layer_norm_rows("native_layer_norm", input, normalized_shape, n, weight, bias, &M, &N)) return -1;
    lm_tensor *in[3] = {input, weight, bias}, *k[3] = {0};
    for (int i = 0; i < 3; i++)
        if (in[i] && !(k[i] = lm_contiguous(in[i]))) {
            while (i-- > 0) if (k[i]) lm_release(k[i]);
            return -1;
        }
    lm_tensor *y = lm_empty(input->ndim, input->shape, input->dtype, LM_CPU);
    lm_tensor *mean = y ? stats_tensor(input, n) : NULL, *rstd = mean ? stats_tensor(input, n) : NULL;
    if (rstd) {
        ln S = {M, N, eps, lm_bytes(k[0]), k[1] ? lm_bytes(k[1]) : NULL, k[2] ? lm_bytes(k[2]) : NULL, NULL,
                lm_bytes(y), lm_bytes(mean), lm_bytes(rstd), NULL, NULL};
        lm_parallel_for(M, M * N, input->dtype == LM_FLOAT32 ? forward_float : forward_double, &S);
    }
    for (int i = 0; i < 3; i++) if (k[i]) lm_release(k[i]);
    if (!rstd) {
        if (y) lm_release(y);
        if (mean) lm_release(mean);
        return -1;
    }
    out[0] = y;
    out[1] = mean;
    out[2] = rstd;
    return 0;
}

int lm_layer_norm_backward_rows(lm_tensor *grad_out, lm_tensor *input, const int64_t *ns, int64_t n, lm_tensor *mean,
                                lm_tensor *rstd, lm_tensor *weight, lm_tensor *bias, int64_t *M, int64_t *N) {
    if (lm_layer_norm_rows("native_layer_norm_backward", input, ns, n, weight, bias, M, N)) return -1;
    if (!lm_same_shape(grad_out, input) || grad_out->dtype != input->dtype)
        return lm_set_error(LM_ERR_VALUE, "native_layer_norm_backward: grad_out must have the input's shape and dtype");
    if (lm_numel(mean) != *M || lm_numel(rstd) != *M || mean->dtype != input->dtype || rstd->dtype != input->dtype)
        return lm_set_error(LM_ERR_VALUE, "native_layer_norm_backward: mean and rstd must hold one %s per row (%lld)",
                            lm_dtype_name(input->dtype), (long long)*M);
    return 0;
}

/* part t of n: rows [M t / n, M (t + 1) / n); d weight and d bias summed into its own dwb slice */
#define LN_BACKWARD(T)                                                                                           \
    static void backward_##T(int t, int n, void *vs) {                                                           \
        const ln *S = vs;                                                                                         \
        int64_t N = S->N, lo = S->M * t / n, hi = S->M * (t + 1) / n;                                            \
        const T *w = (const T *)S->w;                                                                            \
        double *dw = S->dwb + (int64_t)t * 2 * N, *db = dw + N;                                                  \
        for (int64_t j = 0; j < 2 * N; j++) dw[j] = 0;                                                           \
        for (int64_t r = lo; r < hi; r++) {                                                                       \
            const T *x = (const T *)S->x + r * N, *dy = (const T *)S->dy + r * N;                               \
            T m = ((const T *)S->mean)[r], k = ((const T *)S->rstd)[r];                                          \
            double a = 0, c = 0;                                                                                  \
            for (int64_t j = 0; j < N; j++) {                                                                     \
                T xh = (x[j] - m) * k, g = w ? dy[j] * w[j] : dy[j];                                             \
                a += g;                                                                                           \
                c += (double)g * xh;                                                                              \
                dw[j] += (double)dy[j] * xh;                                                                      \
                db[j] += dy[j];                                                                                   \
            }                                                                                                     \
            if (S->dx) {                                                                                          \
                T *dx = (T *)S->dx + r * N, am = (T)(a / (double)N), cm = (T)(c / (double)N);                    \
                for (int64_t j = 0; j < N; j++) {                                                                 \
                    T xh = (x[j] - m) * k, g = w ? dy[j] * w[j] : dy[j];                                         \
                    dx[j] = k * (g - am - xh * cm);                                                               \
                }                                                                                                 \
            }                                                                                                     \
        }                                                                                                         \
    }
LN_BACKWARD(float)
LN_BACKWARD(double)

int lm_cpu_native_layer_norm_backward(lm_tensor *grad_out, lm_tensor *input, const int64_t *normalized_shape,
                                      int64_t normalized_shape_len, lm_tensor *mean, lm_tensor *rstd,
                                      lm_tensor *weight, lm_tensor *bias, bool input_grad, bool weight_grad,
                                      bool bias_grad, lm_tensor **out) {
    int64_t M, N, n = normalized_shape_len, none = 0;
    if (lm_layer_norm_backward_rows(grad_out, input, normalized_shape, n, mean, rstd, weight, bias, &M, &N))
        return -1;
    int dt = input->dtype;
    lm_tensor *in[5] = {grad_out, input, mean, rstd, weight}, *k[5] = {0};
    for (int i = 0; i < 5; i++)
        if (in[i] && !(k[i] = lm_contiguous(in[i]))) {
            while (i-- > 0) if (k[i]) lm_release(k[i]);
            return -1;
        }
    lm_tensor *res[3] = {input_grad ? lm_empty(input->ndim, input->shape, dt, LM_CPU) : lm_empty(1, &none, dt, LM_CPU),
                         weight_grad && weight ? lm_empty((int)n, normalized_shape, dt, LM_CPU) : lm_empty(1, &none, dt, LM_CPU),
                         bias_grad && bias ? lm_empty((int)n, normalized_shape, dt, LM_CPU) : lm_empty(1, &none, dt, LM_CPU)};
    int nt = lm_should_parallelize(M * N) ? lm_get_num_threads() : 1;
    if (nt > M) nt = M > 0 ? (int)M : 1;
    double *dwb = malloc(sizeof(double) * (size_t)(2 * N * nt + 1));
    int err = !res[0] || !res[1] || !res[2] || !dwb;
    if (!err) {
        ln S = {M, N, 0, lm_bytes(k[1]), k[4] ? lm_bytes(k[4]) : NULL, NULL, lm_bytes(k[0]), NULL,
                lm_bytes(k[2]), lm_bytes(k[3]), input_grad ? lm_bytes(res[0]) : NULL, dwb};
        int used = lm_parallel_parts(nt, nt > 1, dt == LM_FLOAT32 ? backward_float : backward_double, &S);
        for (int p = 1; p < used; p++)
            for (int64_t j = 0; j < 2 * N; j++) dwb[j] += dwb[p * 2 * N + j];
        for (int i = 1; i < 3; i++) {
            if (lm_numel(res[i]) != N || N == 0) continue;
            const double *src = dwb + (i - 1) * N;
            if (dt == LM_FLOAT32) for (int64_t j = 0; j < N; j++) ((float *)lm_bytes(res[i]))[j] = (float)src[j];
            else memcpy(lm_bytes(res[i]), src, sizeof(double) * (size_t)N);
        }
    }
    free(dwb);
    for (int i = 0; i < 5; i++) if (k[i]) lm_release(k[i]);
    if (err) {
        for (int i = 0; i < 3; i++) if (res[i]) lm_release(res[i]);
        return lm_set_error(LM_ERR_MEMORY, "native_layer_norm_backward: out of memory");
    }
    for (int i = 0; i < 3; i++) out[i] = res[i];
    return 0;
}
