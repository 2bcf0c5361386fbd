/* The CPU's pointwise runner: carry out a plan with the shared strided
 * iterator, casting inputs to the compute dtype and reading a copy of an input
 * that partially overlaps the output. */
#include <string.h>
#include "device.h"

/* The common case, kept free of casts and the general iterator: fresh output,
 * inputs already in the compute dtype, each contiguous at the output's
 * shape or a single element. NULL (no error set) when it does not apply. */
static lm_tensor *fast_path(const lm_pointwise_spec *spec, const lm_pointwise_plan *p, lm_tensor **ins,
                            const void *ctx) {
    int n = spec->ninputs, big = 0, compute = p->compute;
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
    lm_tensor *out = lm_empty(ref->ndim, ref->shape, p->outdt, LM_CPU);
    if (!out) return NULL;
    it.data[0] = lm_bytes(out);
    it.strides[0][0] = (int64_t)lm_itemsize(p->outdt);
    lm_iter_run_parallel(&it, spec->loops[LM_CPU][compute], ctx, 0);
    return out;
}

lm_tensor *lm_run_cpu_pointwise(const lm_pointwise_spec *spec, const lm_pointwise_plan *p, lm_tensor **ins,
                                lm_tensor *out, const void *ctx) {
    int n = spec->ninputs;
    if (!out) {
        lm_tensor *r = fast_path(spec, p, ins, ctx);
        if (r || lm_error_code()) return r;
    }
    lm_tensor *target = NULL;    /* what the loop writes */
    if (out && out->dtype == p->outdt) { target = out; lm_retain(out); }
    if (!target && !(target = lm_empty(p->ndim, p->shape, p->outdt, LM_CPU))) return NULL;

    lm_tensor *ops[LM_MAX_OPS];
    ops[0] = target;
    int k = 0;
    for (; k < n; k++) {
        lm_tensor *c = lm_pointwise_input(ins[k], p->compute, out);
        if (!c) break;
        ops[k + 1] = c;
    }
    lm_iter it;
    int err = k < n || lm_iter_init(&it, n + 1, ops, p->ndim, p->shape);
    if (!err) {
        lm_iter_order_by(&it, 0);
        lm_iter_run_parallel(&it, spec->loops[LM_CPU][p->compute], ctx, -1);
    }
    for (int j = 0; j < k; j++) lm_release(ops[j + 1]);
    if (err) { lm_release(target); return NULL; }
    return lm_pointwise_result(out, target);
}
