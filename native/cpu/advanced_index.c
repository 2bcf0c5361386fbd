/* Advanced indexing: x[i0, i1, ...] with integer index tensors for the
 * leading dims of x, broadcast together (index), its write (index_put_) and
 * nonzero, which turns boolean masks into such indices. Python's
 * Tensor.__getitem__/__setitem__ move the indexed dims to the front first. */
#include <stdlib.h>
#include "index_util.h"
#include "loom_ops.h"

typedef struct {
    int m;                                   /* index tensors, for dims 0..m-1 of self */
    lm_tensor *idx[LM_MAX_DIMS];             /* each as int64 */
    int nb;                                  /* their broadcast shape */
    int64_t bshape[LM_MAX_DIMS], bcount;
    int64_t istr[LM_MAX_DIMS][LM_MAX_DIMS];  /* each index's strides over bshape (0 where broadcast) */
    int nr;                                  /* the dims of self after the indexed ones */
    int64_t rshape[LM_MAX_DIMS], rstr[LM_MAX_DIMS], rcount;
} plan;

static void plan_release(plan *p) {
    for (int k = 0; k < p->m; k++) lm_release(p->idx[k]);
    p->m = 0;
}

static int make_plan(lm_tensor *self, lm_tensor **indices, int64_t m, plan *p) {
    p->m = 0;
    if (m > self->ndim)
        return lm_set_error(LM_ERR_INDEX, "too many indices for tensor of dimension %d (got %lld)", self->ndim, (long long)m);
    for (int k = 0; k < m; k++) {
        int dt = indices[k]->dtype;
        if (dt != LM_INT64 && dt != LM_INT32) {
            plan_release(p);
            return lm_set_error(LM_ERR_INDEX, "tensors used as indices must be long or int tensors, got %s "
                                "(boolean masks go through x[mask])", lm_dtype_name(dt));
        }
        if (!(p->idx[k] = lm_cast(indices[k], LM_INT64))) { plan_release(p); return -1; }
        p->m = k + 1;
    }
    p->nb = 0;
    for (int k = 0; k < p->m; k++) {   /* broadcast the index shapes, right-aligned */
        const lm_tensor *t = p->idx[k];
        int n = t->ndim > p->nb ? t->ndim : p->nb;
        int64_t out[LM_MAX_DIMS];
        for (int j = 0; j < n; j++) {
            int64_t a = j - (n - p->nb) >= 0 ? p->bshape[j - (n - p->nb)] : 1;
            int64_t b = j - (n - t->ndim) >= 0 ? t->shape[j - (n - t->ndim)] : 1;
            if (a != b && a != 1 && b != 1) {
                char sa[256], sb[256];
                lm_format_shape(sa, sizeof sa, p->nb, p->bshape);
                lm_format_shape(sb, sizeof sb, t->ndim, t->shape);
                plan_release(p);
                return lm_set_error(LM_ERR_INDEX, "shape mismatch: indexing tensors could not be broadcast together "
                                    "with shapes %s and %s", sa, sb);
            }
            out[j] = a == 1 ? b : a;
        }
        p->nb = n;
        memcpy(p->bshape, out, sizeof(int64_t) * n);
    }
    for (int k = 0; k < p->m; k++) {   /* every index checked before anything is read or written */
        const lm_tensor *t = p->idx[k];
        const int64_t *ip = (const int64_t *)lm_bytes(t);
        int64_t n = lm_numel(t), size = self->shape[k], pos[LM_MAX_DIMS] = {0};
        for (int64_t i = 0; i < n; i++, lm_next_pos(t->ndim, t->shape, pos)) {
            int64_t v = ip[lm_pos_offset(t->ndim, pos, t->strides)];
            if (v < -size || v >= size) { plan_release(p); return lm_index_bound_error(v, k, size); }
        }
    }
    p->nr = self->ndim - p->m;
    if (p->nb + p->nr > LM_MAX_DIMS) {
        plan_release(p);
        return lm_set_error(LM_ERR_INDEX, "indexing result would have %d dims (at most %d)", p->nb + p->nr, LM_MAX_DIMS);
    }
    p->bcount = 1;
    for (int j = 0; j < p->nb; j++) p->bcount *= p->bshape[j];
    for (int k = 0; k < p->m; k++) {
        const lm_tensor *t = p->idx[k];
        for (int j = 0; j < p->nb; j++) {
            int tj = j - (p->nb - t->ndim);
            p->istr[k][j] = tj < 0 || t->shape[tj] == 1 ? 0 : t->strides[tj];
        }
    }
    p->rcount = 1;
    for (int j = 0; j < p->nr; j++) {
        p->rshape[j] = self->shape[p->m + j];
        p->rstr[j] = self->strides[p->m + j];
        p->rcount *= p->rshape[j];
    }
    return 0;
}

/* The element offset in self of the indexed slice at broadcast position bpos; -1 on a bad index. */
static int64_t slice_offset(const plan *p, const lm_tensor *self, const int64_t *bpos) {
    int64_t off = 0;
    for (int k = 0; k < p->m; k++) {
        int64_t v = ((const int64_t *)lm_bytes(p->idx[k]))[lm_pos_offset(p->nb, bpos, p->istr[k])];
        int64_t size = self->shape[k];
        if (v < -size || v >= size) { lm_index_bound_error(v, k, size); return -1; }
        off += (v < 0 ? v + size : v) * self->strides[k];
    }
    return off;
}

static bool rest_contiguous(const plan *p) {
    int64_t want[LM_MAX_DIMS];
    lm_contiguous_strides(p->nr, p->rshape, want);
    for (int j = 0; j < p->nr; j++)
        if (p->rshape[j] > 1 && p->rstr[j] != want[j]) return false;
    return true;
}

lm_tensor *lm_cpu_index(lm_tensor *self, lm_tensor **indices, int64_t indices_len) {
    plan p;
    if (make_plan(self, indices, indices_len, &p)) return NULL;
    int64_t shape[LM_MAX_DIMS];
    memcpy(shape, p.bshape, sizeof(int64_t) * p.nb);
    memcpy(shape + p.nb, p.rshape, sizeof(int64_t) * p.nr);
    lm_tensor *out = lm_empty(p.nb + p.nr, shape, self->dtype, self->device);
    if (!out) { plan_release(&p); return NULL; }
    size_t item = lm_itemsize(self->dtype);
    const char *src = lm_bytes(self);
    char *dst = lm_bytes(out);
    bool whole = rest_contiguous(&p);
    int64_t bpos[LM_MAX_DIMS] = {0};
    void *gil = p.bcount * p.rcount > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    for (int64_t b = 0; b < p.bcount; b++, lm_next_pos(p.nb, p.bshape, bpos)) {
        int64_t base = slice_offset(&p, self, bpos);
        if (base < 0) { lm_gil_reacquire(gil); lm_release(out); plan_release(&p); return NULL; }
        char *o = dst + b * p.rcount * (int64_t)item;
        if (whole) {
            memcpy(o, src + base * (int64_t)item, p.rcount * item);
            continue;
        }
        int64_t rpos[LM_MAX_DIMS] = {0};
        for (int64_t r = 0; r < p.rcount; r++, lm_next_pos(p.nr, p.rshape, rpos))
            memcpy(o + r * (int64_t)item, src + (base + lm_pos_offset(p.nr, rpos, p.rstr)) * (int64_t)item, item);
    }
    lm_gil_reacquire(gil);
    plan_release(&p);
    return out;
}

/* values' strides over the indexing result's shape (0 where broadcast); false when it does not broadcast. */
static bool value_strides(const lm_tensor *values, int n, const int64_t *shape, int64_t *vstr) {
    if (values->ndim > n) return false;
    for (int j = 0; j < n; j++) {
        int vj = j - (n - values->ndim);
        if (vj < 0 || values->shape[vj] == 1) vstr[j] = 0;
        else if (values->shape[vj] == shape[j]) vstr[j] = values->strides[vj];
        else return false;
    }
    return true;
}

int lm_cpu_index_put_(lm_tensor *self, lm_tensor **indices, int64_t indices_len, lm_tensor *values, bool accumulate) {
    if (values->dtype != self->dtype)
        return lm_set_error(LM_ERR_RUNTIME, "Index put requires the source and destination dtypes match, got %s for "
                            "the destination and %s for the source.", lm_dtype_name(self->dtype), lm_dtype_name(values->dtype));
    if (lm_check_writable(self)) return -1;
    plan p;
    if (make_plan(self, indices, indices_len, &p)) return -1;
    int n = p.nb + p.nr;
    int64_t shape[LM_MAX_DIMS], vstr[LM_MAX_DIMS];
    memcpy(shape, p.bshape, sizeof(int64_t) * p.nb);
    memcpy(shape + p.nb, p.rshape, sizeof(int64_t) * p.nr);
    if (!value_strides(values, n, shape, vstr)) {
        char sv[256], sr[256];
        lm_format_shape(sv, sizeof sv, values->ndim, values->shape);
        lm_format_shape(sr, sizeof sr, n, shape);
        plan_release(&p);
        return lm_set_error(LM_ERR_RUNTIME, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing "
                            "result of shape %s", sv, sr);
    }
    lm_tensor *vals = values;
    lm_retain(vals);
    if (values->storage == self->storage) {   /* x[i] = x[j]: read the values before writing any */
        lm_release(vals);
        vals = lm_empty(values->ndim, values->shape, values->dtype, values->device);
        if (!vals || lm_copy_into(vals, values)) { lm_release(vals); plan_release(&p); return -1; }
        value_strides(vals, n, shape, vstr);
    }
    int rc = 0;
    int64_t bpos[LM_MAX_DIMS] = {0};
    void *gil = p.bcount * p.rcount > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    LM_DISPATCH(self->dtype, T, ,
        T *dst = (T *)lm_bytes(self);
        const T *src = (const T *)lm_bytes(vals);
        for (int64_t b = 0; b < p.bcount && !rc; b++, lm_next_pos(p.nb, p.bshape, bpos)) {
            int64_t base = slice_offset(&p, self, bpos);
            if (base < 0) { rc = -1; break; }
            int64_t vbase = lm_pos_offset(p.nb, bpos, vstr), rpos[LM_MAX_DIMS] = {0};
            for (int64_t r = 0; r < p.rcount; r++, lm_next_pos(p.nr, p.rshape, rpos)) {
                T *at = dst + base + lm_pos_offset(p.nr, rpos, p.rstr);
                T v = src[vbase + lm_pos_offset(p.nr, rpos, vstr + p.nb)];
                *at = accumulate ? (T)(*at + v) : v;
            }
        })
    lm_gil_reacquire(gil);
    lm_release(vals);
    plan_release(&p);
    return rc;
}

lm_tensor *lm_cpu_nonzero(lm_tensor *self) {
    int nd = self->ndim;
    int64_t n = lm_numel(self), count = 0, pos[LM_MAX_DIMS] = {0};
    bool *hit = malloc(n ? (size_t)n : 1);
    if (!hit) { lm_set_error(LM_ERR_MEMORY, "out of memory"); return NULL; }
    LM_DISPATCH(self->dtype, T, ,
        const T *src = (const T *)lm_bytes(self);
        for (int64_t i = 0; i < n; i++, lm_next_pos(nd, self->shape, pos)) {
            hit[i] = src[lm_pos_offset(nd, pos, self->strides)] != 0;
            count += hit[i];
        })
    int64_t shape[2] = {count, nd};
    lm_tensor *out = lm_empty(2, shape, LM_INT64, self->device);
    if (out) {
        int64_t *op = (int64_t *)lm_bytes(out);
        memset(pos, 0, sizeof pos);
        for (int64_t i = 0; i < n; i++, lm_next_pos(nd, self->shape, pos))
            if (hit[i]) { memcpy(op, pos, sizeof(int64_t) * nd); op += nd; }
    }
    free(hit);
    return out;
}
