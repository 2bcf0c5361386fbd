/* The reduction driver's device-neutral half: resolve the dims, the
 * accumulating dtype and the result's shape (the plan), then hand the plan to
 * the device's runner; out= is written through lm_write_result. */
#include <string.h>
#include "device.h"

static int acc_dtype(const lm_reduce_spec *spec, const lm_tensor *self, int dtype) {
    if (spec->rule == LM_REDUCE_BOOL) return LM_BOOL;
    if (dtype >= 0) return dtype;
    switch (spec->rule) {
        case LM_REDUCE_SUM: return lm_is_floating(self->dtype) || lm_is_complex(self->dtype) ? self->dtype : LM_INT64;
        case LM_REDUCE_FLOAT:
            if (!lm_is_floating(self->dtype) && !lm_is_complex(self->dtype))
                return lm_set_error(LM_ERR_TYPE, "could not infer output dtype. Input dtype must be either "
                                    "a floating point or complex dtype. Got: %s", lm_dtype_name(self->dtype)), -1;
            return self->dtype;
        default: return self->dtype;
    }
}

int lm_reduce_plan_make(const lm_reduce_spec *spec, lm_tensor *self, const int64_t *dims, int64_t ndims,
                        bool keepdim, int dtype, lm_reduce_plan *p) {
    p->device = self->device;
    if (!lm_runners(p->device)) return -1;
    p->result = acc_dtype(spec, self, dtype);
    if (p->result < 0) return -1;
    if (!spec->loops[LM_CPU][p->result])   /* the dtypes the op lists (each device's runner finds its own kernel) */
        return lm_set_error(LM_ERR_TYPE, "not implemented for dtype %s", lm_dtype_name(p->result));
    p->acc = lm_dtype_work[p->result];
    memset(p->red, 0, sizeof p->red);
    if (!dims || ndims <= 0) {   /* None, or [] as in PyTorch: every dim */
        for (int d = 0; d < self->ndim; d++) p->red[d] = true;
    } else {
        for (int64_t i = 0; i < ndims; i++) {
            int d;
            if (lm_wrap_dim(dims[i], self->ndim, &d)) return -1;
            if (self->ndim == 0) continue;
            if (p->red[d]) return lm_set_error(LM_ERR_VALUE, "dim %d appears multiple times in the list of dims", d);
            p->red[d] = true;
        }
    }
    p->ndim = 0;
    p->count = 1;
    for (int d = 0; d < self->ndim; d++) {
        if (p->red[d]) { p->count *= self->shape[d]; if (keepdim) p->shape[p->ndim++] = 1; }
        else p->shape[p->ndim++] = self->shape[d];
    }
    if (spec->needs_nonempty && p->count == 0) {
        int d = 0;
        while (d < self->ndim && !(p->red[d] && self->shape[d] == 0)) d++;
        return lm_set_error(LM_ERR_INDEX, "Expected reduction dim %d to have non-zero size.", d);
    }
    return 0;
}

lm_tensor *lm_reduce(const lm_reduce_spec *spec, lm_tensor *self, const int64_t *dims, int64_t ndims,
                     bool keepdim, int dtype, lm_tensor *out) {
    lm_reduce_plan plan;
    if (lm_reduce_plan_make(spec, self, dims, ndims, keepdim, dtype, &plan)) return NULL;
    lm_tensor *res = lm_runners(plan.device)->reduce(spec, &plan, self);
    if (res && res->dtype != plan.result) {   /* float16/bfloat16: accumulated in float32, rounded once */
        lm_tensor *r = lm_cast(res, plan.result);
        lm_release(res);
        res = r;
    }
    if (!res || !out) return res;
    int err = lm_write_result(spec->name, out, res);
    lm_release(res);
    if (err) return NULL;
    lm_retain(out);
    return out;
}
