/* Optimizer steps that would otherwise be a chain of small in-place ops. */
#include <math.h>
#include "loom.h"
#include "loom_ops.h"
#include "cuda_host.h"
#include "kernels/common.h"

/* One Adam/AdamW step over a whole parameter group, in one pass per
 * parameter: self (exp_avg) and exp_avg_sq are the group's flat moment
 * buffers, params and grads the group's tensors in buffer order. Per element:
 * g = ±grad (+ wd p for L2); p *= 1 - lr wd (decoupled); m = b1 m + (1 - b1) g;
 * v = b2 v + (1 - b2) g^2; p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps),
 * with bc = 1 - beta^step, as PyTorch's Adam (serves: floating) */
int lm_cpu_adam_step_(lm_tensor *self, lm_tensor *exp_avg_sq, lm_tensor **params, int64_t params_len,
                      lm_tensor **grads, int64_t grads_len, double lr, double beta1, double beta2, double eps,
                      double weight_decay, double step, bool decoupled_weight_decay, bool maximize) {
    if (params_len != grads_len)
        return lm_set_error(LM_ERR_VALUE, "got %lld params but %lld grads", (long long)params_len, (long long)grads_len);
    if (!lm_is_contiguous(self) || !lm_is_contiguous(exp_avg_sq) || exp_avg_sq->dtype != self->dtype ||
        lm_numel(exp_avg_sq) != lm_numel(self))
        return lm_set_error(LM_ERR_VALUE, "exp_avg (self) and exp_avg_sq must be contiguous buffers of one numel and dtype");
    if (step < 1) return lm_set_error(LM_ERR_VALUE, "step must be at least 1, got %g", step);
    int64_t total = 0;
    for (int64_t k = 0; k < params_len; k++) {
        lm_tensor *p = params[k], *g = grads[k];
        if (p->dtype != self->dtype || g->dtype != self->dtype)
            return lm_set_error(LM_ERR_TYPE, "param %lld and its grad must have exp_avg's dtype %s", (long long)k,
                                lm_dtype_name(self->dtype));
        if (!lm_is_contiguous(p) || !lm_is_contiguous(g) || !lm_same_shape(p, g))
            return lm_set_error(LM_ERR_VALUE, "param %lld and its grad must be contiguous and of one shape", (long long)k);
        if (lm_check_writable(p)) return -1;
        total += lm_numel(p);
    }
    if (total != lm_numel(self))
        return lm_set_error(LM_ERR_VALUE, "the params hold %lld elements but exp_avg holds %lld", (long long)total,
                            (long long)lm_numel(self));
    if (lm_check_writable(self) || lm_check_writable(exp_avg_sq)) return -1;
    const double step_size = lr / (1 - pow(beta1, step)), inv_bc2 = 1 / sqrt(1 - pow(beta2, step));
    const double shrink = decoupled_weight_decay ? 1 - lr * weight_decay : 1;
    const double l2 = decoupled_weight_decay ? 0 : weight_decay, sign = maximize ? -1 : 1;
    if (self->device == LM_CUDA) {   /* one launch per parameter, the same arithmetic */
        const double consts[10] = {beta1, 1 - beta1, beta2, 1 - beta2, eps, step_size, inv_bc2, shrink, l2, sign};
        size_t item = lm_itemsize(self->dtype);
        char *m = lm_bytes(self), *v = lm_bytes(exp_avg_sq);
        for (int64_t k = 0; k < params_len; k++) {
            int64_t n = lm_numel(params[k]);
            if (lm_cuda_adam_run(self->dtype, n, lm_bytes(params[k]), lm_bytes(grads[k]), m, v, consts)) return -1;
            m += (size_t)n * item;
            v += (size_t)n * item;
        }
    } else {
        void *gil = total > (1 << 20) ? lm_gil_release() : NULL;
        LM_DISPATCH_FLOAT(self->dtype, T, ,
            T *restrict m = (T *)lm_bytes(self), *restrict v = (T *)lm_bytes(exp_avg_sq);
            const T b1 = (T)beta1, c1 = (T)(1 - beta1), b2 = (T)beta2, c2 = (T)(1 - beta2), e = (T)eps;
            const T ss = (T)step_size, ib = (T)inv_bc2, sh = (T)shrink, wd = (T)l2, sg = (T)sign;
            for (int64_t k = 0; k < params_len; k++) {
                T *restrict p = (T *)lm_bytes(params[k]);
                const T *restrict g = (const T *)lm_bytes(grads[k]);
                const int64_t n = lm_numel(params[k]);
                /* no threads: an outlined OpenMP body stops gcc vectorizing this (3x slower at 26k elements) */
                for (int64_t i = 0; i < n; i++) {
                    T pi = p[i] * sh, gi = g[i] * sg + wd * p[i];
                    T mi = m[i] * b1 + gi * c1, vi = v[i] * b2 + gi * gi * c2;
                    m[i] = mi;
                    v[i] = vi;
                    p[i] = pi - ss * mi / (LM_MATH(sqrt, vi) * ib + e);
                }
                m += n;
                v += n;
            })
        lm_gil_reacquire(gil);
    }
    for (int64_t k = 0; k < params_len; k++) lm_bump_version(params[k]);
    lm_bump_version(self);
    lm_bump_version(exp_avg_sq);
    return 0;
}
