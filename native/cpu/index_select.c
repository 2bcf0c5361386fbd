/* Whole slices picked by a 1-D index along one dim: index_select, its
 * accumulating inverse index_add, embedding (rows of a 2-D weight) and one_hot. */
#include "index_util.h"
#include "loom_ops.h"
#include "ops_support.h"   /* LM_SCALAR_AS */
#include "cuda_host.h"

/* A 1-D (or 0-d) index as a contiguous int64 tensor, each value checked against size. */
static lm_tensor *checked_index(lm_tensor *index, int d, int64_t size, bool allow_int32) {
    if (index->ndim > 1) {
        lm_set_error(LM_ERR_INDEX, "index must be a vector (0-d or 1-d), but got a %d-d tensor", index->ndim);
        return NULL;
    }
    lm_tensor *l = lm_index_as_long(index, "index", allow_int32);
    lm_tensor *c = l ? lm_contiguous(l) : NULL;
    lm_release(l);
    lm_tensor *h = c ? lm_to_host(c) : NULL;   /* a device index is checked on a host copy */
    if (!h) { lm_release(c); return NULL; }
    const int64_t *ip = (const int64_t *)lm_bytes(h);
    for (int64_t i = 0, n = lm_numel(h); i < n; i++)
        if (ip[i] < 0 || ip[i] >= size) { lm_index_bound_error(ip[i], d, size); lm_release(c); lm_release(h); return NULL; }
    lm_release(h);
    return c;
}

/* out[..., j, ...] = self[..., idx[j], ...] along d, out contiguous; idx_t holds idx (checked) */
static lm_tensor *select(lm_tensor *self, int d, lm_tensor *idx_t, int out_ndim) {
    const int64_t *idx = (const int64_t *)lm_bytes(idx_t);
    int64_t n = lm_numel(idx_t);
    lm_nd S;
    lm_as_nd(self, &S);
    int64_t shape[LM_MAX_DIMS];
    memcpy(shape, S.shape, sizeof shape);
    shape[d] = n;
    lm_tensor *out = lm_empty(out_ndim, shape, self->dtype, self->device);
    if (!out) return NULL;
    if (self->device == LM_CUDA) {
        if (lm_cuda_index_rows_run(self, self->ndim ? d : 0, idx_t, out)) { lm_release(out); return NULL; }
        return out;
    }
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < d; k++) outer *= S.shape[k];
    for (int k = d + 1; k < S.nd; k++) inner *= S.shape[k];
    size_t item = lm_itemsize(self->dtype);
    const char *src = lm_bytes(self);
    char *dst = lm_bytes(out);
    void *gil = outer * n * inner > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    if (lm_is_contiguous(self)) {   /* whole rows of `inner` elements: one memcpy each */
        for (int64_t o = 0; o < outer; o++)
            for (int64_t j = 0; j < n; j++)
                memcpy(dst + ((o * n + j) * inner) * item, src + ((o * S.shape[d] + idx[j]) * inner) * item, inner * item);
    } else {
        int64_t pos[LM_MAX_DIMS] = {0}, total = outer * n * inner;
        for (int64_t i = 0; i < total; i++, lm_next_pos(S.nd, shape, pos)) {
            int64_t off = lm_pos_offset(S.nd, pos, S.strides) + (idx[pos[d]] - pos[d]) * S.strides[d];
            memcpy(dst + i * item, src + off * (int64_t)item, item);
        }
    }
    lm_gil_reacquire(gil);
    return out;
}

lm_tensor *lm_cpu_index_select(lm_tensor *self, int64_t dim, lm_tensor *index) {
    /* PyTorch moves a uint16/32/64 self's slices as bytes but has no element loop for them (1-D, 0-d) */
    if (lm_is_barebones(self->dtype) && self->ndim <= 1) {
        lm_set_error(LM_ERR_TYPE, "not implemented for dtype %s", lm_dtype_name(self->dtype));
        return NULL;
    }
    int d;
    if (lm_wrap_dim(dim, self->ndim, &d)) return NULL;
    lm_nd S;
    lm_as_nd(self, &S);
    lm_tensor *idx = checked_index(index, d, S.shape[d], true);
    if (!idx) return NULL;
    if (self->ndim == 0 && lm_numel(idx) != 1) {
        lm_set_error(LM_ERR_INDEX, "index_select of a 0-d tensor needs exactly one index, got %lld", (long long)lm_numel(idx));
        lm_release(idx);
        return NULL;
    }
    lm_tensor *out = select(self, d, idx, self->ndim);
    lm_release(idx);
    return out;
}

lm_tensor *lm_index_add_index(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *source, lm_scalar alpha,
                              int *dp) {
    if (lm_wrap_dim(dim, self->ndim, dp)) return NULL;
    int d = *dp;
    if (source->dtype != self->dtype) {
        lm_set_error(LM_ERR_RUNTIME, "self (%s) and source (%s) must have the same scalar type",
                     lm_dtype_name(self->dtype), lm_dtype_name(source->dtype));
        return NULL;
    }
    if (lm_check_scalar_fits(alpha, self->dtype)) return NULL;
    lm_nd S, R;
    lm_as_nd(self, &S);
    lm_as_nd(source, &R);
    lm_tensor *idx = checked_index(index, d, S.shape[d], true);
    if (!idx) return NULL;
    bool ok = R.nd == S.nd && R.shape[d] == lm_numel(idx);
    for (int k = 0; ok && k < S.nd; k++) ok = k == d || R.shape[k] == S.shape[k];
    if (!ok) {
        char a[256], b[256];
        lm_format_shape(a, sizeof a, source->ndim, source->shape);
        lm_format_shape(b, sizeof b, self->ndim, self->shape);
        lm_set_error(LM_ERR_VALUE, "source of shape %s does not fit self of shape %s with %lld indices along dim %d",
                     a, b, (long long)lm_numel(idx), d);
        lm_release(idx);
        return NULL;
    }
    return idx;
}

lm_tensor *lm_cpu_index_add(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *source, lm_scalar alpha) {
    int d;
    lm_tensor *idx = lm_index_add_index(self, dim, index, source, alpha, &d), *out = NULL;
    if (!idx) return NULL;
    lm_nd S, R;
    lm_as_nd(self, &S);
    lm_as_nd(source, &R);
    if (!(out = lm_empty(self->ndim, self->shape, self->dtype, self->device)) || lm_copy_into(out, self)) {
        lm_release(out);
        out = NULL;
        goto done;
    }
    lm_nd O;
    lm_as_nd(out, &O);
    const int64_t *ip = (const int64_t *)lm_bytes(idx);
    int64_t pos[LM_MAX_DIMS] = {0}, n = lm_numel(source);
    void *gil = n > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    int64_t outer = 1, inner = 1;   /* out is contiguous; a contiguous source goes by whole rows */
    for (int k = 0; k < d; k++) outer *= S.shape[k];
    for (int k = d + 1; k < S.nd; k++) inner *= S.shape[k];
    bool rows = lm_is_contiguous(source);
    int64_t m = lm_numel(idx);
    LM_DISPATCH(self->dtype, T, ,
        const T a = LM_SCALAR_AS(T, alpha);
        const T *sp = (const T *)lm_bytes(source);
        T *dst = (T *)lm_bytes(out);
        if (rows)
            for (int64_t o = 0; o < outer; o++)
                for (int64_t j = 0; j < m; j++) {
                    T *restrict at = dst + (o * S.shape[d] + ip[j]) * inner;
                    const T *restrict from = sp + (o * m + j) * inner;
                    for (int64_t i = 0; i < inner; i++) at[i] = (T)(at[i] + a * from[i]);
                }
        else
            for (int64_t i = 0; i < n; i++, lm_next_pos(R.nd, R.shape, pos)) {
                T *at = dst + lm_pos_offset(O.nd, pos, O.strides) + (ip[pos[d]] - pos[d]) * O.strides[d];
                *at = (T)(*at + a * sp[lm_pos_offset(R.nd, pos, R.strides)]);
            })
    lm_gil_reacquire(gil);
done:
    lm_release(idx);
    return out;
}

lm_tensor *lm_cpu_embedding(lm_tensor *weight, lm_tensor *indices, int64_t padding_idx, bool scale_grad_by_freq) {
    (void)padding_idx, (void)scale_grad_by_freq;   /* only the backward uses them */
    if (weight->ndim != 2) {
        lm_set_error(LM_ERR_VALUE, "'weight' must be 2-D, got a %d-d tensor", weight->ndim);
        return NULL;
    }
    if (indices->ndim + 1 > LM_MAX_DIMS) {
        lm_set_error(LM_ERR_VALUE, "indices have too many dims (%d)", indices->ndim);
        return NULL;
    }
    lm_tensor *l = lm_index_as_long(indices, "indices", true);
    lm_tensor *c = l ? lm_contiguous(l) : NULL;
    lm_release(l);
    lm_tensor *h = c ? lm_to_host(c) : NULL;   /* device indices are checked on a host copy */
    if (!h) { lm_release(c); return NULL; }
    int64_t n = lm_numel(h), rows = weight->shape[0];
    const int64_t *ip = (const int64_t *)lm_bytes(h);
    for (int64_t i = 0; i < n; i++)
        if (ip[i] < 0 || ip[i] >= rows) {
            lm_set_error(LM_ERR_INDEX, "index %lld is out of range for an embedding of %lld rows", (long long)ip[i], (long long)rows);
            lm_release(c);
            lm_release(h);
            return NULL;
        }
    lm_release(h);
    lm_tensor *flat = select(weight, 0, c, 2);
    lm_release(c);
    if (!flat) return NULL;
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    memcpy(shape, indices->shape, sizeof(int64_t) * indices->ndim);
    shape[indices->ndim] = weight->shape[1];
    lm_contiguous_strides(indices->ndim + 1, shape, strides);
    lm_tensor *out = lm_view(flat, indices->ndim + 1, shape, strides, flat->offset);
    lm_release(flat);
    return out;
}

lm_tensor *lm_cpu_one_hot(lm_tensor *self, int64_t num_classes) {
    if (self->dtype != LM_INT64) {
        lm_set_error(LM_ERR_TYPE, "one_hot is only applicable to index tensors of dtype int64, got %s", lm_dtype_name(self->dtype));
        return NULL;
    }
    if (self->ndim + 1 > LM_MAX_DIMS) { lm_set_error(LM_ERR_VALUE, "too many dims (%d)", self->ndim); return NULL; }
    lm_tensor *c = lm_contiguous(self);
    if (!c) return NULL;
    const int64_t *ip = (const int64_t *)lm_bytes(c);
    int64_t n = lm_numel(c), hi = -1;
    lm_tensor *out = NULL;
    for (int64_t i = 0; i < n; i++) {
        if (ip[i] < 0) { lm_set_error(LM_ERR_RUNTIME, "Class values must be non-negative."); goto done; }
        if (ip[i] > hi) hi = ip[i];
    }
    if (num_classes == -1) {
        if (n == 0) { lm_set_error(LM_ERR_RUNTIME, "Can not infer total number of classes from empty tensor."); goto done; }
        num_classes = hi + 1;
    } else if (num_classes < -1) {
        lm_set_error(LM_ERR_VALUE, "num_classes should be -1 or non-negative, got %lld", (long long)num_classes);
        goto done;
    } else if (hi >= num_classes) {
        lm_set_error(LM_ERR_RUNTIME, "Class values must be smaller than num_classes.");
        goto done;
    }
    int64_t shape[LM_MAX_DIMS];
    memcpy(shape, self->shape, sizeof(int64_t) * self->ndim);
    shape[self->ndim] = num_classes;
    if (!(out = lm_empty(self->ndim + 1, shape, LM_INT64, self->device))) goto done;
    int64_t *op = (int64_t *)lm_bytes(out);
    memset(op, 0, sizeof(int64_t) * n * num_classes);
    for (int64_t i = 0; i < n; i++) op[i * num_classes + ip[i]] = 1;
done:
    lm_release(c);
    return out;
}
