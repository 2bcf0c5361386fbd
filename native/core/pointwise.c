/* The pointwise driver's device-neutral half: type promotion, argument checks,
 * broadcasting and out= validation (the plan), then the device's runner. */
#include <string.h>
#include "device.h"

/* Scalars that take part in promotion count as wrapped Python numbers. */
static int promote_with_scalars(const lm_pointwise_spec *spec, lm_tensor **ins, const void *ctx) {
    lm_tensor *all[LM_MAX_OPS + 4];
    int n = 0;
    for (int k = 0; k < spec->ninputs; k++) all[n++] = ins[k];
    for (int j = 0; j < spec->nscalars; j++) {
        lm_scalar v = *(const lm_scalar *)((const char *)ctx + spec->scalar_offsets[j]);
        if (v.kind >= 0 && (all[n] = lm_scalar_tensor(v, -1, true))) n++;
    }
    int r = lm_result_type(all, n);
    for (int k = spec->ninputs; k < n; k++) lm_release(all[k]);
    return r;
}

static int result_dtype(const lm_pointwise_spec *spec, lm_tensor **ins, lm_pointwise_plan *p, const void *ctx) {
    int r = spec->promote == LM_PROMOTE_SCALARS ? promote_with_scalars(spec, ins, ctx)
          : spec->promote == LM_PROMOTE_VALUES ? lm_result_type(ins + 1, spec->ninputs - 1)
                                               : lm_result_type(ins, spec->ninputs);
    if (r < 0) return -1;   /* a pair PyTorch does not promote */
    if (spec->promote == LM_PROMOTE_FLOAT && !lm_is_floating(r) && !lm_is_complex(r)) r = lm_get_default_dtype();
    p->compute = r;
    p->outdt = spec->promote == LM_PROMOTE_BOOL_OUT ? LM_BOOL : spec->real_out ? lm_dtype_to_real[r] : r;
    if (spec->check && spec->check(ins, r, ctx)) return -1;   /* its message is the more precise one */
    /* the dtypes the op lists; another device's runner reports a kernel it lacks */
    if (!spec->loops[LM_CPU][r]) return lm_set_error(LM_ERR_TYPE, "not implemented for dtype %s", lm_dtype_name(r));
    return 0;
}

int lm_write_result(const char *name, lm_tensor *out, lm_tensor *result) {
    (void)name;   /* Python prefixes the op's name to the message */
    if (lm_check_writable(out)) return -1;
    if (out->device != result->device)
        return lm_set_error(LM_ERR_RUNTIME, "Expected out tensor to be on %s, but found %s",
                            lm_device_name(result->device), lm_device_name(out->device));
    if (!lm_can_cast(result->dtype, out->dtype))
        return lm_set_error(LM_ERR_TYPE, "result type %s can't be cast to the desired output type %s",
                            lm_dtype_name(result->dtype), lm_dtype_name(out->dtype));
    if (!lm_same_shape(out, result) && lm_numel(out) == 0 && lm_resize_empty(out, result->ndim, result->shape))
        return -1;
    if (!lm_same_shape(out, result)) {
        char a[256], b[256];
        lm_format_shape(a, sizeof a, out->ndim, out->shape);
        lm_format_shape(b, sizeof b, result->ndim, result->shape);
        return lm_set_error(LM_ERR_VALUE, "output with shape %s doesn't match the result shape %s", a, b);
    }
    return lm_copy_into(out, result);
}

/* out= must take the result: castable, writable, and of the broadcast shape (an
 * empty out takes it). The plan then runs at out's shape. */
static int plan_out(lm_pointwise_plan *p, lm_tensor *out) {
    if (lm_check_writable(out)) return -1;
    if (out->device != p->device)
        return lm_set_error(LM_ERR_RUNTIME, "Expected out tensor to be on %s, but found %s",
                            lm_device_name(p->device), lm_device_name(out->device));
    if (!lm_can_cast(p->outdt, out->dtype))
        return lm_set_error(LM_ERR_TYPE, "result type %s can't be cast to the desired output type %s",
                            lm_dtype_name(p->outdt), lm_dtype_name(out->dtype));
    bool same = out->ndim == p->ndim && !memcmp(out->shape, p->shape, sizeof(int64_t) * (size_t)p->ndim);
    if (!same && lm_numel(out) == 0 && lm_resize_empty(out, p->ndim, p->shape)) return -1;
    int ond = 0;
    int64_t oshape[LM_MAX_DIMS];
    if (lm_broadcast_shapes(out->ndim, out->shape, p->ndim, p->shape, &ond, oshape)) return -1;
    if (ond != out->ndim || memcmp(oshape, out->shape, sizeof(int64_t) * (size_t)ond)) {
        char a[256], b[256];
        lm_format_shape(a, sizeof a, out->ndim, out->shape);
        lm_format_shape(b, sizeof b, p->ndim, p->shape);
        return lm_set_error(LM_ERR_VALUE, "output with shape %s doesn't match the broadcast shape %s", a, b);
    }
    p->ndim = out->ndim;
    memcpy(p->shape, out->shape, sizeof(int64_t) * (size_t)p->ndim);
    return 0;
}

/* an input as the layout rules see it: its strides in bytes along the plan's dims (0 where broadcast) */
typedef struct {
    int64_t bytes[LM_MAX_DIMS];
    bool contiguous, channels_last, dense;
} layout_operand;

/* PyTorch's order of two dims (TensorIterator's reorder_dimensions, TensorUtils' infer_dense_strides):
 * the first operand not broadcast along either decides by its strides, equal strides by the sizes
 * (the smaller first); 1: d0 goes after d1 */
static int dim_order(const layout_operand *ops, int n, const int64_t *shape, int d0, int d1) {
    for (int k = 0; k < n; k++) {
        int64_t s0 = ops[k].bytes[d0], s1 = ops[k].bytes[d1];
        if (s0 == 0 || s1 == 0) continue;
        if (s0 != s1) return s0 < s1 ? -1 : 1;
        if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
}

/* dense strides (elements) in the order the operands give the dims */
static void dense_strides(const layout_operand *ops, int n, int ndim, const int64_t *shape, int64_t *strides) {
    int perm[LM_MAX_DIMS];   /* perm[0] the fastest-moving dim */
    for (int i = 0; i < ndim; i++) perm[i] = ndim - 1 - i;
    for (int i = 1; i < ndim; i++) {   /* insertion sort that leaves ambiguous pairs alone */
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int c = dim_order(ops, n, shape, perm[d0], perm[d1]);
            if (c > 0) {
                int x = perm[d0]; perm[d0] = perm[d1]; perm[d1] = x;
                d1 = d0;
            } else if (c < 0) {
                break;
            }
        }
    }
    int64_t s = 1;
    for (int i = 0; i < ndim; i++) {
        strides[perm[i]] = s;
        s *= shape[perm[i]] > 1 ? shape[perm[i]] : 1;
    }
}

/* input t at the plan's shape; one the CPU converts to the compute dtype first is seen as that copy,
 * which keeps t's strides where t is dense and takes dense ones in t's order otherwise, as torch's
 * tensor.to(dtype) */
static void layout_of(const lm_tensor *t, const lm_pointwise_plan *p, layout_operand *o) {
    int64_t strides[LM_MAX_DIMS];
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    o->dense = lm_is_dense(t);
    int64_t item = (int64_t)lm_itemsize(t->dtype);
    if (t->dtype != p->compute && !o->dense) {
        layout_operand self;
        for (int d = 0; d < t->ndim; d++) self.bytes[d] = t->strides[d];
        dense_strides(&self, 1, t->ndim, t->shape, strides);
        o->dense = true;
    }
    lm_tensor v = *t;   /* the strides alone change: shape checks on the copy's layout */
    memcpy(v.strides, strides, sizeof(int64_t) * (size_t)t->ndim);
    o->contiguous = lm_is_contiguous(&v);
    o->channels_last = t->ndim == 4 && lm_has_memory_format(&v, 1) == 1;
    if (t->dtype != p->compute) item = (int64_t)lm_itemsize(p->compute);
    for (int d = 0; d < p->ndim; d++) {
        int dt = d - (p->ndim - t->ndim);
        o->bytes[d] = dt < 0 || (t->shape[dt] == 1 && p->shape[d] != 1) ? 0 : strides[dt] * item;
    }
}

/* A new result takes the layout of its inputs, as PyTorch's TensorIterator gives it: contiguous or
 * channels-last when every input is, the inputs' strides where they share shape and dense layout,
 * otherwise dense strides in the order the inputs' strides give the dims (so exp(a.T) is laid out as
 * a.T) */
static void result_strides(lm_tensor **ins, int n, lm_pointwise_plan *p) {
    layout_operand ops[LM_MAX_OPS];
    bool shaped = true, contiguous = true, channels_last = p->ndim == 4, same = n > 0;   /* fast setups: one shape */
    for (int k = 0; k < n; k++) {
        layout_of(ins[k], p, &ops[k]);
        shaped = shaped && ins[k]->ndim == p->ndim && !memcmp(ins[k]->shape, p->shape, sizeof(int64_t) * (size_t)p->ndim);
        contiguous = contiguous && ops[k].contiguous;
        channels_last = channels_last && ops[k].channels_last;
        same = same && ops[k].dense && !memcmp(ops[k].bytes, ops[0].bytes, sizeof(int64_t) * (size_t)p->ndim);
    }
    int64_t numel = 1;
    for (int d = 0; d < p->ndim; d++) numel *= p->shape[d];
    if (shaped && (contiguous || channels_last))   /* TensorIterator's fast setups: size-1 dims get the format's strides */
        lm_format_strides(contiguous ? 0 : 1, p->ndim, p->shape, NULL, p->strides);
    else if (shaped && same)
        for (int d = 0; d < p->ndim; d++) p->strides[d] = ops[0].bytes[d] / (int64_t)lm_itemsize(p->compute);
    else if (numel == 0)
        lm_contiguous_strides(p->ndim, p->shape, p->strides);
    else
        dense_strides(ops, n, p->ndim, p->shape, p->strides);
}

int lm_pointwise_plan_make(const lm_pointwise_spec *spec, lm_tensor **ins, lm_tensor *out, const void *ctx,
                           lm_pointwise_plan *p) {
    int n = spec->ninputs;
    /* the device of the first operand that is not a number (a Python number or a 0-d CPU
     * tensor goes with any device, as in PyTorch) */
    int first = 0;
    while (first < n - 1 && (ins[first]->flags & LM_FLAG_WRAPPED_NUMBER || !ins[first]->ndim) &&
           ins[first]->device == LM_CPU)
        first++;
    p->device = ins[first]->device;
    for (int k = 0; k < n; k++)
        if (ins[k]->device != p->device && !(ins[k]->flags & LM_FLAG_WRAPPED_NUMBER) && ins[k]->ndim)
            return lm_set_error(LM_ERR_RUNTIME, "Expected all tensors to be on the same device, but found at "
                                "least two devices, %s and %s!", lm_device_name(p->device),
                                lm_device_name(ins[k]->device));
    if (!lm_runners(p->device) || result_dtype(spec, ins, p, ctx)) return -1;
    for (int j = 0; j < spec->nscalars; j++)
        if (lm_check_scalar_fits(*(const lm_scalar *)((const char *)ctx + spec->scalar_offsets[j]), p->compute))
            return -1;
    p->ndim = 0;
    for (int k = 0; k < n; k++)
        if (lm_broadcast_shapes(p->ndim, p->shape, ins[k]->ndim, ins[k]->shape, &p->ndim, p->shape)) return -1;
    if (out && plan_out(p, out)) return -1;
    result_strides(ins, n, p);
    return 0;
}

lm_tensor *lm_pointwise(const lm_pointwise_spec *spec, lm_tensor **ins, lm_tensor *out, const void *ctx) {
    lm_pointwise_plan plan;
    if (lm_pointwise_plan_make(spec, ins, out, ctx, &plan)) return NULL;
    return lm_runners(plan.device)->pointwise(spec, &plan, ins, out, ctx);
}

/* ---- shared by the devices' runners ---- */

static bool partial_overlap(const lm_tensor *out, const lm_tensor *in) {
    if (out->storage != in->storage) return false;
    if (out->offset == in->offset && lm_same_shape(out, in) &&
        !memcmp(out->strides, in->strides, sizeof(int64_t) * (size_t)out->ndim))
        return false;   /* exact aliasing is fine for elementwise work */
    return true;
}

lm_tensor *lm_pointwise_input(lm_tensor *in, int compute, const lm_tensor *out) {
    lm_tensor *c = lm_cast(in, compute);
    if (c && c == in && out && partial_overlap(out, c)) {   /* partial overlap: read a copy */
        lm_tensor *copy = lm_empty_like(c, -1);
        if (copy && lm_copy_into(copy, c)) { lm_release(copy); copy = NULL; }
        lm_release(c);
        c = copy;
    }
    return c;
}

lm_tensor *lm_pointwise_result(lm_tensor *out, lm_tensor *target) {
    if (out && target != out) {   /* out of another dtype: the result converted into it */
        int err = lm_copy_into(out, target);
        lm_release(target);
        if (err) return NULL;
        lm_retain(out);
        return out;
    }
    if (out) lm_bump_version(out);
    return target;
}
