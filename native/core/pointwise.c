/* The pointwise driver: type promotion, broadcasting, output allocation or
 * validation, casts, overlap handling, then one strided loop. */
#include <string.h>
#include "ops_support.h"

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

static int result_dtype(const lm_pointwise_spec *spec, lm_tensor **ins, int *compute, int *outdt, const void *ctx) {
    if (ins[0]->device != LM_CPU)   /* the loops table is the CPU's; CUDA adds its own */
        return lm_set_error(LM_ERR_NOTIMPL, "no kernel for device %d", ins[0]->device);
    int r = spec->promote == LM_PROMOTE_SCALARS ? promote_with_scalars(spec, ins, ctx)
                                               : lm_result_type(ins, spec->ninputs);
    if (spec->promote == LM_PROMOTE_FLOAT && !lm_is_floating(r)) r = LM_FLOAT32;
    *compute = r;
    *outdt = spec->promote == LM_PROMOTE_BOOL_OUT ? LM_BOOL : r;
    if (spec->check && spec->check(ins, r, ctx)) return -1;   /* its message is the more precise one */
    if (!spec->loops[r])
        return lm_set_error(LM_ERR_TYPE, "not implemented for dtype %s", lm_dtype_name(r));
    return 0;
}

static bool overlaps(const lm_tensor *out, const lm_tensor *in) {
    if (out->storage != in->storage) return false;
    if (out->offset == in->offset && lm_same_shape(out, in) &&
        !memcmp(out->strides, in->strides, sizeof(int64_t) * (size_t)out->ndim))
        return false;   /* exact aliasing is fine for elementwise work */
    return true;
}

int lm_write_result(const char *name, lm_tensor *out, lm_tensor *result) {
    (void)name;
    if (lm_check_writable(out)) return -1;
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

/* The common case, kept free of casts and the general iterator: fresh output,
 * inputs already in the compute dtype, each contiguous at the output's
 * shape or a single element. */
static lm_tensor *fast_path(const lm_pointwise_spec *spec, lm_tensor **ins, int compute, int outdt,
                            const void *ctx) {
    int n = spec->ninputs, big = 0;
    for (int k = 1; k < n; k++) if (ins[k]->ndim > ins[big]->ndim) big = k;
    const lm_tensor *ref = ins[big];
    int64_t numel = lm_numel(ref);
    lm_iter it;
    double scalars[LM_MAX_OPS];   /* single elements converted to the compute dtype */
    it.nops = n + 1;
    it.ndim = 1;
    it.numel = numel;
    it.shape[0] = numel;
    for (int k = 0; k < n; k++) {
        const lm_tensor *t = ins[k];
        if (t->device != LM_CPU) return NULL;
        it.data[k + 1] = lm_bytes(t);
        if (t->dtype == compute && (t == ref || lm_same_shape(t, ref)) && lm_is_contiguous(t)) {
            it.strides[0][k + 1] = (int64_t)lm_itemsize(compute);
        } else if (lm_numel(t) == 1 && t->ndim <= ref->ndim && t != ref) {
            it.strides[0][k + 1] = 0;
            if (t->dtype != compute) {
                char *src = lm_bytes(t), *dst = (char *)&scalars[k];
                char *d[2] = {dst, src};
                int64_t st[2] = {0, 0};
                lm_cast_loop(compute, t->dtype)(d, st, 1, NULL);
                it.data[k + 1] = dst;
            }
        } else {
            return NULL;
        }
    }
    lm_tensor *out = lm_empty(ref->ndim, ref->shape, outdt, LM_CPU);
    if (!out) return NULL;
    it.data[0] = lm_bytes(out);
    it.strides[0][0] = (int64_t)lm_itemsize(outdt);
    lm_iter_run_parallel(&it, spec->loops[compute], ctx, 0);
    return out;
}

lm_tensor *lm_pointwise(const lm_pointwise_spec *spec, lm_tensor **ins, lm_tensor *out, const void *ctx) {
    int n = spec->ninputs, compute, outdt;
    if (result_dtype(spec, ins, &compute, &outdt, ctx)) return NULL;
    for (int j = 0; j < spec->nscalars; j++)
        if (lm_check_scalar_fits(*(const lm_scalar *)((const char *)ctx + spec->scalar_offsets[j]), compute))
            return NULL;
    if (!out) {
        lm_tensor *r = fast_path(spec, ins, compute, outdt, ctx);
        if (r || lm_error_code()) return r;
    }

    int ndim = 0;
    int64_t shape[LM_MAX_DIMS];
    for (int k = 0; k < n; k++) {
        if (lm_broadcast_shapes(ndim, shape, ins[k]->ndim, ins[k]->shape, &ndim, shape)) return NULL;
        if (ins[k]->device != ins[0]->device)
            { lm_set_error(LM_ERR_RUNTIME, "Expected all tensors to be on the same device"); return NULL; }
    }

    lm_tensor *target = NULL;    /* what the loop writes */
    if (out && lm_check_writable(out)) return NULL;
    if (out) {
        if (!lm_can_cast(outdt, out->dtype)) {
            lm_set_error(LM_ERR_TYPE, "result type %s can't be cast to the desired output type %s",
                         lm_dtype_name(outdt), lm_dtype_name(out->dtype));
            return NULL;
        }
        bool same = out->ndim == ndim && !memcmp(out->shape, shape, sizeof(int64_t) * (size_t)ndim);
        if (!same && lm_numel(out) == 0 && lm_resize_empty(out, ndim, shape)) return NULL;
        int ond = 0;
        int64_t oshape[LM_MAX_DIMS];
        if (lm_broadcast_shapes(out->ndim, out->shape, ndim, shape, &ond, oshape)) return NULL;
        if (ond != out->ndim || memcmp(oshape, out->shape, sizeof(int64_t) * (size_t)ond)) {
            char a[256], b[256];
            lm_format_shape(a, sizeof a, out->ndim, out->shape);
            lm_format_shape(b, sizeof b, ndim, shape);
            lm_set_error(LM_ERR_VALUE, "output with shape %s doesn't match the broadcast shape %s", a, b);
            return NULL;
        }
        if (out->dtype == outdt) { target = out; lm_retain(out); }
        ndim = out->ndim;
        memcpy(shape, out->shape, sizeof(int64_t) * (size_t)ndim);
    }
    if (!target && !(target = lm_empty(ndim, shape, outdt, ins[0]->device))) return NULL;

    lm_tensor *ops[LM_MAX_OPS];
    ops[0] = target;
    int k = 0;
    for (; k < n; k++) {
        lm_tensor *c = lm_cast(ins[k], compute);
        if (c && c == ins[k] && out && overlaps(out, c)) {   /* partial overlap: read a copy */
            lm_tensor *copy = lm_empty_like(c, -1);
            if (copy && lm_copy_into(copy, c)) { lm_release(copy); copy = NULL; }
            lm_release(c);
            c = copy;
        }
        if (!c) break;
        ops[k + 1] = c;
    }
    lm_iter it;
    int err = k < n || lm_iter_init(&it, n + 1, ops, ndim, shape);
    if (!err) {
        lm_iter_order_by(&it, 0);
        lm_iter_run_parallel(&it, spec->loops[compute], ctx, -1);
    }
    for (int j = 0; j < k; j++) lm_release(ops[j + 1]);
    if (err) { lm_release(target); return NULL; }
    if (out && target != out) {
        err = lm_copy_into(out, target);
        lm_release(target);
        if (err) return NULL;
        lm_retain(out);
        return out;
    }
    if (out) lm_bump_version(out);
    return target;
}
