/* Reductions that also give positions: argmax/argmin and max/min along a dim.
 * Ties go to the first occurrence; NaN wins, as in PyTorch. */
#include <string.h>
#include "index_reduce.h"
#include "loom.h"
#include "loom_ops.h"

/* the host's loop: a line at a time */
static int run_cpu(lm_tensor *x, const lm_argreduce_geom *G, bool is_max, lm_tensor *vals, lm_tensor *idx) {
    int64_t pos[LM_MAX_DIMS] = {0}, R = G->R, rs = G->rs;
    char *base = lm_bytes(x);
    int64_t *ip = (int64_t *)lm_bytes(idx);
    LM_DISPATCH(x->dtype, T, ,
        const int64_t item = (int64_t)sizeof(T);
        for (int64_t o = 0; o < G->outer; o++) {
            int64_t off = 0;
            for (int k = 0; k < G->on; k++) off += pos[k] * G->ostr[k];
            const char *p = base + off * item;
            T best = *(const T *)p;
            int64_t bi = 0;
            for (int64_t r = 1; r < R && best == best; r++) {
                T v = *(const T *)(p + r * rs * item);
                if (v != v || (is_max ? v > best : v < best)) { best = v; bi = r; }
            }
            ip[o] = bi;
            if (vals) ((T *)lm_bytes(vals))[o] = best;
            for (int k = G->on - 1; k >= 0; k--) { if (++pos[k] < G->oshape[k]) break; pos[k] = 0; }
        })
    return 0;
}

int lm_argreduce(lm_tensor *self, int64_t dim, bool keepdim, bool is_max, lm_tensor **values, lm_tensor **indices,
                 lm_argreduce_run run) {
    lm_tensor *x = self;
    int d = 0;
    if (dim == INT64_MIN) {   /* None: the flattened tensor */
        int64_t n = lm_numel(self);
        if (n == 0) return lm_set_error(LM_ERR_INDEX, "Expected reduction dim to be specified for input.numel() == 0.");
        x = lm_contiguous(self);
        if (!x) return -1;
        int64_t one = 1;
        lm_tensor *flat = lm_view(x, 1, &n, &one, x->offset);
        lm_release(x);
        if (!(x = flat)) return -1;
    } else {
        if (lm_wrap_dim(dim, self->ndim, &d)) return -1;
        if (self->ndim && self->shape[d] == 0)
            return lm_set_error(LM_ERR_INDEX, "Expected reduction dim %d to have non-zero size.", d);
        lm_retain(x);
    }
    lm_argreduce_geom G = {.R = x->ndim ? x->shape[d] : 1, .rs = x->ndim ? x->strides[d] : 0, .outer = 1};
    for (int k = 0; k < x->ndim; k++)   /* outer dims and their input strides */
        if (k != d) { G.oshape[G.on] = x->shape[k]; G.ostr[G.on++] = x->strides[k]; }
    int64_t rshape[LM_MAX_DIMS];
    int rn = 0;
    if (dim == INT64_MIN) { if (keepdim) for (int k = 0; k < self->ndim; k++) rshape[rn++] = 1; }
    else for (int k = 0; k < self->ndim; k++) { if (k != d) rshape[rn++] = self->shape[k]; else if (keepdim) rshape[rn++] = 1; }
    lm_tensor *vals = values ? lm_empty(rn, rshape, x->dtype, x->device) : NULL;
    lm_tensor *idx = lm_empty(rn, rshape, LM_INT64, x->device);
    for (int k = 0; k < G.on; k++) G.outer *= G.oshape[k];
    if (!idx || (values && !vals) || run(x, &G, is_max, vals, idx)) {
        lm_release(vals);
        lm_release(idx);
        lm_release(x);
        return -1;
    }
    lm_release(x);
    if (values) *values = vals;
    *indices = idx;
    return 0;
}

lm_tensor *lm_cpu_argmax(lm_tensor *self, int64_t dim, bool keepdim) {
    lm_tensor *i = NULL;
    return lm_argreduce(self, dim, keepdim, true, NULL, &i, run_cpu) ? NULL : i;
}

lm_tensor *lm_cpu_argmin(lm_tensor *self, int64_t dim, bool keepdim) {
    lm_tensor *i = NULL;
    return lm_argreduce(self, dim, keepdim, false, NULL, &i, run_cpu) ? NULL : i;
}

int lm_cpu_max_dim(lm_tensor *self, int64_t dim, bool keepdim, lm_tensor **out) {
    return lm_argreduce(self, dim, keepdim, true, &out[0], &out[1], run_cpu);
}

int lm_cpu_min_dim(lm_tensor *self, int64_t dim, bool keepdim, lm_tensor **out) {
    return lm_argreduce(self, dim, keepdim, false, &out[0], &out[1], run_cpu);
}
