/* Optimizer steps that would otherwise be a chain of small in-place ops. */
#include <math.h>
#include "loom.h"
#include "loom_ops.h"
#include "kernels/common.h"

static int same_flat(const lm_tensor *a, const lm_tensor *b, const char *what) {
    if (!lm_is_contiguous(b) || lm_numel(b) != lm_numel(a) || b->dtype != a->dtype)
        return lm_set_error(LM_ERR_VALUE, "%s must be contiguous with self's numel (%lld) and dtype (%s)", what,
                            (long long)lm_numel(a), lm_dtype_name(a->dtype));
    return 0;
}

/* Adam's moments, updated in place, and its direction written into self:
 * m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  self = m / (sqrt(v) / bc2 + eps) */
int lm_cpu_adam_moments_(lm_tensor *self, lm_tensor *grad, lm_tensor *exp_avg, lm_tensor *exp_avg_sq, double beta1,
                         double beta2, double eps, double bias_correction2_sqrt) {
    if (!lm_is_contiguous(self)) return lm_set_error(LM_ERR_VALUE, "self must be contiguous");
    if (same_flat(self, grad, "grad") || same_flat(self, exp_avg, "exp_avg") || same_flat(self, exp_avg_sq, "exp_avg_sq"))
        return -1;
    if (lm_check_writable(exp_avg) || lm_check_writable(exp_avg_sq)) return -1;
    int64_t n = lm_numel(self);
    LM_DISPATCH_FLOAT(self->dtype, T, return lm_set_error(LM_ERR_TYPE, "not implemented for dtype %s", lm_dtype_name(self->dtype)),
        T *o = (T *)lm_bytes(self), *m = (T *)lm_bytes(exp_avg), *v = (T *)lm_bytes(exp_avg_sq);
        const T *g = (const T *)lm_bytes(grad);
        const T b1 = (T)beta1, c1 = (T)(1 - beta1), b2 = (T)beta2, c2 = (T)(1 - beta2), e = (T)eps;
        const T inv_bc2 = (T)(1 / bias_correction2_sqrt);
        for (int64_t i = 0; i < n; i++) {
            T mi = m[i] * b1 + g[i] * c1, vi = v[i] * b2 + g[i] * g[i] * c2;
            m[i] = mi;
            v[i] = vi;
            o[i] = mi / (LM_MATH(sqrt, vi) * inv_bc2 + e);
        })
    lm_bump_version(exp_avg);
    lm_bump_version(exp_avg_sq);
    return 0;
}
