/* cat and stack: each input copied into its slice of one new tensor. */
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"

lm_tensor *lm_cpu_cat(lm_tensor **tensors, int64_t tensors_len, int64_t dim) {
    if (tensors_len <= 0) { lm_set_error(LM_ERR_VALUE, "expected a non-empty list of Tensors"); return NULL; }
    const lm_tensor *ref = NULL;   /* legacy 1-D empty tensors take no part, as in PyTorch */
    for (int64_t i = 0; i < tensors_len; i++) {
        const lm_tensor *t = tensors[i];
        if (t->ndim == 0) {
            lm_set_error(LM_ERR_VALUE, "zero-dimensional tensor (at position %lld) cannot be concatenated", (long long)i);
            return NULL;
        }
        if (!ref && !(t->ndim == 1 && t->shape[0] == 0)) ref = t;
    }
    if (!ref) ref = tensors[0];
    int d;
    if (lm_wrap_dim(dim, ref->ndim, &d)) return NULL;
    int64_t shape[LM_MAX_DIMS];
    memcpy(shape, ref->shape, sizeof shape);
    shape[d] = 0;
    for (int64_t i = 0; i < tensors_len; i++) {
        const lm_tensor *t = tensors[i];
        if (t->ndim == 1 && t->shape[0] == 0 && t != ref) continue;
        if (t->ndim != ref->ndim) {
            lm_set_error(LM_ERR_VALUE, "Tensors must have same number of dimensions: got %d and %d", ref->ndim, t->ndim);
            return NULL;
        }
        for (int k = 0; k < t->ndim; k++)
            if (k != d && t->shape[k] != ref->shape[k]) {
                lm_set_error(LM_ERR_VALUE, "Sizes of tensors must match except in dimension %d. Expected size %lld "
                             "but got size %lld for tensor number %lld in the list.", d, (long long)ref->shape[k],
                             (long long)t->shape[k], (long long)i);
                return NULL;
            }
        shape[d] += t->shape[d];
    }
    int dtype = lm_result_type(tensors, (int)tensors_len);
    lm_tensor *out = dtype < 0 ? NULL : lm_empty(ref->ndim, shape, dtype, ref->device);
    if (!out) return NULL;
    int64_t at = 0;
    for (int64_t i = 0; i < tensors_len; i++) {
        lm_tensor *t = tensors[i];
        if ((t->ndim == 1 && t->shape[0] == 0 && t != ref) || t->shape[d] == 0) continue;
        int64_t vshape[LM_MAX_DIMS];
        memcpy(vshape, shape, sizeof vshape);
        vshape[d] = t->shape[d];
        lm_tensor *slot = lm_view(out, out->ndim, vshape, out->strides, at * out->strides[d]);
        int err = !slot || lm_copy_into(slot, t);
        lm_release(slot);
        if (err) { lm_release(out); return NULL; }
        at += t->shape[d];
    }
    return out;
}

lm_tensor *lm_cpu_stack(lm_tensor **tensors, int64_t tensors_len, int64_t dim) {
    if (tensors_len <= 0) { lm_set_error(LM_ERR_VALUE, "stack expects a non-empty TensorList"); return NULL; }
    const lm_tensor *ref = tensors[0];
    int d;
    if (lm_wrap_dim(dim, ref->ndim + 1, &d)) return NULL;
    if (ref->ndim + 1 > LM_MAX_DIMS) { lm_set_error(LM_ERR_VALUE, "too many dimensions"); return NULL; }
    lm_tensor *views[256];
    lm_tensor **vs = tensors_len <= 256 ? views : malloc(sizeof(lm_tensor *) * (size_t)tensors_len);
    if (!vs) { lm_set_error(LM_ERR_MEMORY, "out of memory"); return NULL; }
    int64_t made = 0;
    lm_tensor *out = NULL;
    for (; made < tensors_len; made++) {
        lm_tensor *t = tensors[made];
        if (!lm_same_shape(t, ref)) {
            char a[256], b[256];
            lm_format_shape(a, sizeof a, ref->ndim, ref->shape);
            lm_format_shape(b, sizeof b, t->ndim, t->shape);
            lm_set_error(LM_ERR_VALUE, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at "
                         "entry %lld", a, b, (long long)made);
            goto done;
        }
        int64_t sh[LM_MAX_DIMS], st[LM_MAX_DIMS];
        for (int k = 0, j = 0; k <= t->ndim; k++) {
            if (k == d) { sh[k] = 1; st[k] = 1; continue; }
            sh[k] = t->shape[j]; st[k] = t->strides[j]; j++;
        }
        if (!(vs[made] = lm_view(t, t->ndim + 1, sh, st, t->offset))) goto done;
    }
    out = lm_cpu_cat(vs, tensors_len, d);
done:
    for (int64_t i = 0; i < made; i++) lm_release(vs[i]);
    if (vs != views) free(vs);
    return out;
}
