/* memory_format= (PyTorch's torch.memory_format): the strides a format gives a shape, and a
 * result moved into them. Codes as loom._memory_format: -1 none given (the op's own layout),
 * 0 contiguous_format, 1 channels_last (N, C, H, W stored as N, H, W, C), 2 channels_last_3d
 * (N, C, D, H, W stored as N, D, H, W, C), 3 preserve_format (the strides of a dense `like`). */
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "ops_support.h"

/* dense and non-overlapping: some order of the dims has strides 1, n0, n0 n1, ... (size-1 dims
 * may have any stride) */
bool lm_is_dense(const lm_tensor *t) {
    int order[LM_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 0) return true;
        if (t->shape[d] != 1) order[n++] = d;
    }
    for (int i = 1; i < n; i++)   /* insertion sort by stride: n <= LM_MAX_DIMS */
        for (int j = i; j > 0 && t->strides[order[j]] < t->strides[order[j - 1]]; j--) {
            int x = order[j]; order[j] = order[j - 1]; order[j - 1] = x;
        }
    int64_t want = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[order[i]] != want) return false;
        want *= t->shape[order[i]];
    }
    return true;
}

int lm_format_strides(int fmt, int ndim, const int64_t *shape, const lm_tensor *like, int64_t *strides) {
    static const int cl[] = {0, 2, 3, 1}, cl3[] = {0, 2, 3, 4, 1};
    int perm[LM_MAX_DIMS];
    for (int d = 0; d < ndim; d++) perm[d] = d;
    if (fmt == 1 || fmt == 2) {
        int rank = fmt == 1 ? 4 : 5;
        if (ndim != rank)
            return lm_set_error(LM_ERR_RUNTIME, "required rank %d tensor to use %s format", rank,
                                fmt == 1 ? "channels_last" : "channels_last_3d");
        memcpy(perm, fmt == 1 ? cl : cl3, sizeof(int) * (size_t)rank);
    } else if (fmt == 3 && like && like->ndim == ndim && !memcmp(like->shape, shape, sizeof(int64_t) * (size_t)ndim)
               && lm_is_dense(like)) {
        memcpy(strides, like->strides, sizeof(int64_t) * (size_t)ndim);
        return 0;
    } else if (fmt < -1 || fmt > 3) {
        return lm_set_error(LM_ERR_VALUE, "unknown memory format code %d", fmt);
    }
    int64_t s = 1;
    for (int k = ndim - 1; k >= 0; k--) {
        strides[perm[k]] = s;
        s *= shape[perm[k]] > 1 ? shape[perm[k]] : 1;
    }
    return 0;
}

/* Laid out as fmt: the strides that matter (dims of size > 1) are the format's. */
int lm_has_memory_format(const lm_tensor *t, int fmt) {
    int64_t strides[LM_MAX_DIMS];
    if (fmt == 3) return 1;   /* any layout preserves itself */
    if (fmt < 0) fmt = 0;
    if (lm_format_strides(fmt, t->ndim, t->shape, t, strides)) return -1;
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] > 1 && t->strides[d] != strides[d]) return 0;
    return 1;
}

lm_tensor *lm_apply_memory_format(lm_tensor *r, int fmt, const lm_tensor *like) {
    if (!r || fmt < 0) return r;
    int64_t strides[LM_MAX_DIMS];
    if (lm_format_strides(fmt, r->ndim, r->shape, like, strides)) { lm_release(r); return NULL; }
    bool same = true;
    for (int d = 0; d < r->ndim; d++) same = same && (r->shape[d] <= 1 || r->strides[d] == strides[d]);
    if (same) return r;
    lm_tensor *out = lm_empty_strided(r->ndim, r->shape, strides, r->dtype, r->device);
    if (out && lm_copy_into(out, r)) { lm_release(out); out = NULL; }
    lm_release(r);
    return out;
}
