/* gather and the scatter family: one element of self per element of index,
 * read (gather) or written (scatter, scatter_add, scatter_reduce) at index's value along dim
 * and at index's own position along every other dim. */
#include <stdio.h>
#include <stdlib.h>
#include "index_util.h"
#include "loom_ops.h"
#include "ops_support.h"   /* LM_SCALAR_AS */

/* PyTorch's shape rules: same number of dims, index no larger than src
 * anywhere and no larger than self apart from dim. */
static int check_shapes(const lm_nd *S, const lm_nd *I, const lm_nd *R, int d) {
    if (I->nd != S->nd)
        return lm_set_error(LM_ERR_RUNTIME, "Index tensor must have the same number of dimensions as self tensor "
                            "(%d vs %d)", I->nd, S->nd);
    if (R && R->nd != S->nd)
        return lm_set_error(LM_ERR_RUNTIME, "Index tensor must have the same number of dimensions as src tensor "
                            "(%d vs %d)", I->nd, R->nd);
    for (int k = 0; k < I->nd; k++) {
        if (k != d && I->shape[k] > S->shape[k])
            return lm_set_error(LM_ERR_RUNTIME, "Size does not match at dimension %d: expected index size %lld to be "
                                "no larger than self's %lld apart from dimension %d", k, (long long)I->shape[k],
                                (long long)S->shape[k], d);
        if (R && I->shape[k] > R->shape[k])
            return lm_set_error(LM_ERR_RUNTIME, "Size does not match at dimension %d: expected index size %lld to be "
                                "no larger than src's %lld", k, (long long)I->shape[k], (long long)R->shape[k]);
    }
    return 0;
}

lm_tensor *lm_gather_scatter_index(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *src, int *d) {
    if (lm_wrap_dim(dim, self->ndim, d)) return NULL;
    if (src && src->dtype != self->dtype) {
        lm_set_error(LM_ERR_RUNTIME, "Expected self.dtype to be equal to src.dtype (got %s and %s)",
                     lm_dtype_name(self->dtype), lm_dtype_name(src->dtype));
        return NULL;
    }
    lm_tensor *idx = lm_index_as_long(index, "index", true);
    if (!idx) return NULL;
    lm_nd S, I, R;
    lm_as_nd(self, &S);
    lm_as_nd(idx, &I);
    if (src) lm_as_nd(src, &R);
    if (check_shapes(&S, &I, src ? &R : NULL, *d)) {
        lm_release(idx);
        return NULL;
    }
    return idx;
}

lm_tensor *lm_cpu_gather(lm_tensor *self, int64_t dim, lm_tensor *index) {
    int d;
    lm_tensor *idx = lm_gather_scatter_index(self, dim, index, NULL, &d);
    if (!idx) return NULL;
    lm_nd S, I;
    lm_as_nd(self, &S);
    lm_as_nd(idx, &I);
    lm_tensor *out = lm_empty(index->ndim, index->shape, self->dtype, self->device);
    if (!out) goto fail;
    int64_t n = lm_numel(idx), pos[LM_MAX_DIMS] = {0};
    const int64_t *ip = (const int64_t *)lm_bytes(idx);
    void *gil = n > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    LM_DISPATCH(self->dtype, T, ,
        const T *src = (const T *)lm_bytes(self);
        T *dst = (T *)lm_bytes(out);
        for (int64_t i = 0; i < n; i++, lm_next_pos(I.nd, I.shape, pos)) {
            int64_t v = ip[lm_pos_offset(I.nd, pos, I.strides)];
            if (v < 0 || v >= S.shape[d]) { lm_gil_reacquire(gil); lm_index_bound_error(v, d, S.shape[d]); goto fail; }
            dst[i] = src[lm_pos_offset(S.nd, pos, S.strides) + (v - pos[d]) * S.strides[d]];
        })
    lm_gil_reacquire(gil);
    lm_release(idx);
    return out;
fail:
    lm_release(out);
    lm_release(idx);
    return NULL;
}

enum { SCATTER_SET, SCATTER_ADD };

/* A copy of self with src (or value, when src is NULL) written at index along dim. */
static lm_tensor *scatter(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *src, lm_scalar value, int mode) {
    int d;
    lm_tensor *idx = lm_gather_scatter_index(self, dim, index, src, &d);
    if (!idx) return NULL;
    lm_nd S, I, R;
    lm_as_nd(self, &S);
    lm_as_nd(idx, &I);
    if (src) lm_as_nd(src, &R);
    lm_tensor *out = lm_empty(self->ndim, self->shape, self->dtype, self->device);
    if (!out || lm_copy_into(out, self)) goto fail;
    lm_nd O;
    lm_as_nd(out, &O);
    int64_t n = lm_numel(idx), pos[LM_MAX_DIMS] = {0};
    const int64_t *ip = (const int64_t *)lm_bytes(idx);
    void *gil = n > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    LM_DISPATCH(self->dtype, T, ,
        const T *sp = src ? (const T *)lm_bytes(src) : NULL;
        const T fill = LM_SCALAR_AS(T, value);
        T *dst = (T *)lm_bytes(out);
        for (int64_t i = 0; i < n; i++, lm_next_pos(I.nd, I.shape, pos)) {
            int64_t v = ip[lm_pos_offset(I.nd, pos, I.strides)];
            if (v < 0 || v >= S.shape[d]) { lm_gil_reacquire(gil); lm_index_bound_error(v, d, S.shape[d]); goto fail; }
            T *at = dst + lm_pos_offset(O.nd, pos, O.strides) + (v - pos[d]) * O.strides[d];
            T x = sp ? sp[lm_pos_offset(R.nd, pos, R.strides)] : fill;
            if (mode == SCATTER_ADD) *at = (T)(*at + x);
            else *at = x;
        })
    lm_gil_reacquire(gil);
    lm_release(idx);
    return out;
fail:
    lm_release(out);
    lm_release(idx);
    return NULL;
}

static const lm_scalar NO_VALUE = {0.0, 0, 1};

lm_tensor *lm_cpu_scatter_src(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *src) {
    return scatter(self, dim, index, src, NO_VALUE, SCATTER_SET);
}

lm_tensor *lm_cpu_scatter_value(lm_tensor *self, int64_t dim, lm_tensor *index, lm_scalar value) {
    if (lm_check_scalar_fits(value, self->dtype)) return NULL;
    return scatter(self, dim, index, NULL, value, SCATTER_SET);
}

lm_tensor *lm_cpu_scatter_add(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *src) {
    return scatter(self, dim, index, src, NO_VALUE, SCATTER_ADD);
}

/* scatter_reduce's combinations. */
enum { SR_SUM, SR_PROD, SR_MEAN, SR_AMAX, SR_AMIN };

static int reduce_mode(const char *reduce, int *mode) {
    static const char *names[] = {"sum", "prod", "mean", "amax", "amin"};
    for (int k = 0; k < 5; k++) if (!strcmp(reduce, names[k])) { *mode = k; return 0; }
    return lm_set_error(LM_ERR_RUNTIME, "reduce argument must be either sum, prod, mean, amax or amin, got %s", reduce);
}

static void shape_text(const lm_tensor *t, char *buf, size_t len) {
    size_t at = (size_t)snprintf(buf, len, "[");
    for (int k = 0; k < t->ndim && at < len; k++)
        at += (size_t)snprintf(buf + at, len - at, k ? ", %lld" : "%lld", (long long)t->shape[k]);
    if (at < len) snprintf(buf + at, len - at, "]");
}

/* A copy of self with src's elements combined (sum, prod, mean, amax, amin) into it where index points
 * along dim. Without include_self a position index names starts from the first element scattered to it
 * (positions it does not name keep self's value). NaN wins amax and amin; an integer mean rounds down.
 * serves: all */
lm_tensor *lm_cpu_scatter_reduce(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *src, const char *reduce,
                                 bool include_self) {
    int d, mode;
    if (reduce_mode(reduce, &mode) || lm_wrap_dim(dim, self->ndim, &d)) return NULL;
    if (src->dtype != self->dtype) {
        lm_set_error(LM_ERR_RUNTIME, "Expected self.dtype to be equal to src.dtype");
        return NULL;
    }
    lm_tensor *idx = lm_index_as_long(index, "index", true);
    if (!idx) return NULL;
    lm_nd S, I, R;
    lm_as_nd(self, &S);
    lm_as_nd(idx, &I);
    lm_as_nd(src, &R);
    lm_tensor *out = NULL;
    uint8_t *seen = NULL;
    int64_t *count = NULL;
    if (lm_numel(idx) && (I.nd != S.nd || I.nd != R.nd)) {
        lm_set_error(LM_ERR_RUNTIME, "Index tensor must have the same number of dimensions as self tensor");
        goto fail;
    }
    for (int k = 0; k < I.nd && lm_numel(idx); k++)
        if ((k != d && I.shape[k] > S.shape[k]) || I.shape[k] > R.shape[k]) {
            char si[160], ss[160], sr[160];
            shape_text(idx, si, sizeof si);
            shape_text(self, ss, sizeof ss);
            shape_text(src, sr, sizeof sr);
            lm_set_error(LM_ERR_RUNTIME, "Expected index %s to be no larger than self %s apart from dimension %d and "
                         "to be no larger size than src %s", si, ss, d, sr);
            goto fail;
        }
    if (!(out = lm_empty(self->ndim, self->shape, self->dtype, self->device)) || lm_copy_into(out, self)) goto fail;
    int64_t n = lm_numel(idx), total = lm_numel(out), pos[LM_MAX_DIMS] = {0};
    if (n == 0) { lm_release(idx); return out; }
    if (!(seen = calloc((size_t)total, 1)) || (mode == SR_MEAN && !(count = calloc((size_t)total, sizeof(int64_t))))) {
        lm_set_error(LM_ERR_MEMORY, "out of memory");
        goto fail;
    }
    lm_nd O;
    lm_as_nd(out, &O);
    const int64_t *ip = (const int64_t *)lm_bytes(idx);
    void *gil = n > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    LM_DISPATCH(self->dtype, T, ,
        const T *sp = (const T *)lm_bytes(src);
        T *dst = (T *)lm_bytes(out);
        for (int64_t i = 0; i < n; i++, lm_next_pos(I.nd, I.shape, pos)) {
            int64_t v = ip[lm_pos_offset(I.nd, pos, I.strides)];
            if (v < 0 || v >= S.shape[d]) { lm_gil_reacquire(gil); lm_index_bound_error(v, d, S.shape[d]); goto fail; }
            int64_t o = lm_pos_offset(O.nd, pos, O.strides) + (v - pos[d]) * O.strides[d];
            T x = sp[lm_pos_offset(R.nd, pos, R.strides)], *at = dst + o;
            if (count) count[o]++;
            if (!include_self && !seen[o]) { seen[o] = 1; *at = x; continue; }
            seen[o] = 1;
            switch (mode) {
            case SR_SUM: case SR_MEAN: *at = (T)(*at + x); break;
            case SR_PROD: *at = (T)(*at * x); break;
            case SR_AMAX: if (x != x || (*at == *at && x > *at)) *at = x; break;
            default: if (x != x || (*at == *at && x < *at)) *at = x; break;
            }
        }
        if (count)
            for (int64_t o = 0; o < total; o++) {
                int64_t c = count[o] + (include_self ? 1 : 0);
                if (!seen[o] || c <= 1) continue;
                if ((T)0.5 == (T)0) {   /* integers: rounded down, as PyTorch's floor division */
                    T q = (T)(dst[o] / (T)c);
                    if ((T)(q * (T)c) != dst[o] && dst[o] < 0) q = (T)(q - 1);
                    dst[o] = q;
                } else {
                    dst[o] = (T)((double)dst[o] / (double)c);
                }
            })
    lm_gil_reacquire(gil);
    free(seen);
    free(count);
    lm_release(idx);
    return out;
fail:
    free(seen);
    free(count);
    lm_release(out);
    lm_release(idx);
    return NULL;
}
