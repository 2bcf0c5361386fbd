/* The reduction driver: resolve dims and dtype, fill the result with the
 * identity, then walk the input in memory order with the result viewed at
 * the input's shape (stride 0 on reduced dims). The generated loop sees
 * either a span reducing into one element or an elementwise accumulate. */
#include <stdlib.h>
#include <string.h>
#include "ops_support.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static int acc_dtype(const lm_reduce_spec *spec, const lm_tensor *self, int dtype) {
    if (spec->rule == LM_REDUCE_BOOL) return LM_BOOL;
    if (dtype >= 0) return dtype;
    switch (spec->rule) {
        case LM_REDUCE_SUM: return lm_is_floating(self->dtype) ? self->dtype : LM_INT64;
        case LM_REDUCE_FLOAT:
            if (!lm_is_floating(self->dtype))
                return lm_set_error(LM_ERR_TYPE, "could not infer output dtype. Input dtype must be either "
                                    "a floating point or complex dtype. Got: %s", lm_dtype_name(self->dtype)), -1;
            return self->dtype;
        default: return self->dtype;
    }
}

static void mean_divide(lm_tensor *r, int64_t count) {
    int64_t n = lm_numel(r);
    char *p = lm_bytes(r);
    /* mean's result is floating (LM_REDUCE_FLOAT refuses the rest before any work) */
    LM_DISPATCH_FLOAT(r->dtype, T, ,
        for (int64_t i = 0; i < n; i++) ((T *)p)[i] /= (T)count;)
}

/* Full (or nearly full) reductions: each thread reduces a slice into a
 * private copy of the result, then the copies are combined. */
static void run_private(const lm_iter *it, const lm_reduce_spec *spec, lm_tensor *res, int dim) {
#ifdef _OPENMP
    int nt = lm_get_num_threads();
    size_t nbytes = (size_t)lm_numel(res) * lm_itemsize(res->dtype);
    char *base = lm_bytes(res);
    char *priv = malloc(nbytes * (size_t)nt);
    if (!priv) { lm_iter_run(it, spec->loops[res->dtype], NULL); return; }
    int64_t len = it->shape[dim];
    void *gil = lm_gil_release();
    #pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        char *mine = priv + nbytes * (size_t)t;
        spec->identity[res->dtype](mine, lm_numel(res));
        int64_t b = len * t / n, e = len * (t + 1) / n;
        if (e > b) {
            lm_iter sub = *it;
            lm_iter_narrow(&sub, dim, b, e);
            sub.data[0] = mine + (sub.data[0] - base);
            lm_iter_run(&sub, spec->loops[res->dtype], NULL);
        }
    }
    lm_gil_reacquire(gil);
    int64_t st[2] = {(int64_t)lm_itemsize(res->dtype), (int64_t)lm_itemsize(res->dtype)};
    for (int t = 0; t < nt; t++) {
        char *d[2] = {base, priv + nbytes * (size_t)t};
        spec->loops[res->dtype](d, st, lm_numel(res), NULL);
    }
    free(priv);
#else
    (void)dim;
    lm_iter_run(it, spec->loops[res->dtype], NULL);
#endif
}

static void run(const lm_reduce_spec *spec, lm_tensor *res, lm_tensor *x, const bool *red) {
    /* the result seen at the input's shape: a stack header, never escapes */
    lm_tensor rv = *res;
    rv.ndim = x->ndim;
    int64_t rst[LM_MAX_DIMS];
    lm_contiguous_strides(res->ndim, res->shape, rst);
    for (int d = 0, j = 0; d < x->ndim; d++) {
        rv.shape[d] = x->shape[d];
        if (red[d]) { rv.strides[d] = 0; if (res->ndim == x->ndim) j++; }
        else rv.strides[d] = rst[j++];
    }
    lm_tensor *ops[2] = {&rv, x};
    lm_iter it;
    if (lm_iter_init(&it, 2, ops, x->ndim, x->shape)) return;
    lm_iter_order_by(&it, 1);
    int64_t item = (int64_t)lm_itemsize(res->dtype);
    if (it.ndim >= 2 && it.strides[0][0] == item && it.strides[0][1] == item && it.strides[1][0] == 0) {
        /* kept contiguous inner dim, reduced dim above it: fold whole rows per call */
        lm_rows rows = {it.shape[1], it.strides[1][1]};
        lm_iter folded = it;
        for (int d = 1; d + 1 < it.ndim; d++) {
            folded.shape[d] = it.shape[d + 1];
            memcpy(folded.strides[d], it.strides[d + 1], sizeof it.strides[d]);
        }
        folded.ndim--;
        lm_iter_run_parallel(&folded, spec->rows[res->dtype], &rows, 0);
        return;
    }
    if (!lm_should_parallelize(it.numel) || it.ndim == 0) { lm_iter_run(&it, spec->loops[res->dtype], NULL); return; }
    int kept = -1, all = 0;
    for (int d = 0; d < it.ndim; d++) {
        if (it.shape[d] > it.shape[all]) all = d;
        if (it.strides[d][0] != 0 && (kept < 0 || it.shape[d] > it.shape[kept])) kept = d;
    }
    if (kept >= 0 && it.shape[kept] >= lm_get_num_threads()) lm_iter_run_parallel(&it, spec->loops[res->dtype], NULL, kept);
    else run_private(&it, spec, res, all);
}

lm_tensor *lm_reduce(const lm_reduce_spec *spec, lm_tensor *self, const int64_t *dims, int64_t ndims,
                     bool keepdim, int dtype, lm_tensor *out) {
    int acc = acc_dtype(spec, self, dtype);
    if (acc < 0) return NULL;
    if (!spec->loops[acc]) {
        lm_set_error(LM_ERR_TYPE, "not implemented for dtype %s", lm_dtype_name(acc));
        return NULL;
    }
    bool red[LM_MAX_DIMS] = {0};
    if (!dims || ndims <= 0) {   /* None, or [] as in PyTorch: every dim */
        for (int d = 0; d < self->ndim; d++) red[d] = true;
    } else {
        for (int64_t i = 0; i < ndims; i++) {
            int d;
            if (lm_wrap_dim(dims[i], self->ndim, &d)) return NULL;
            if (self->ndim == 0) continue;
            if (red[d]) { lm_set_error(LM_ERR_VALUE, "dim %d appears multiple times in the list of dims", d); return NULL; }
            red[d] = true;
        }
    }
    int ond = 0;
    int64_t oshape[LM_MAX_DIMS], count = 1;
    for (int d = 0; d < self->ndim; d++) {
        if (red[d]) { count *= self->shape[d]; if (keepdim) oshape[ond++] = 1; }
        else oshape[ond++] = self->shape[d];
    }
    if (spec->needs_nonempty && count == 0) {
        int d = 0;
        while (d < self->ndim && !(red[d] && self->shape[d] == 0)) d++;
        lm_set_error(LM_ERR_INDEX, "Expected reduction dim %d to have non-zero size.", d);
        return NULL;
    }
    lm_tensor *x = lm_cast(self, acc);
    lm_tensor *res = x ? lm_empty(ond, oshape, acc, self->device) : NULL;
    if (!res) { lm_release(x); return NULL; }
    spec->identity[acc](lm_bytes(res), lm_numel(res));
    if (lm_numel(x) > 0) run(spec, res, x, red);
    lm_release(x);
    if (spec->mean) mean_divide(res, count);
    if (out) {
        int err = lm_write_result(spec->name, out, res);
        lm_release(res);
        if (err) return NULL;
        lm_retain(out);
        return out;
    }
    return res;
}
