/* The CPU's reduction runner: fill the result with the identity, then walk
 * the input in memory order with the result viewed at the input's shape
 * (stride 0 on reduced dims). The generated loop sees either a span reducing
 * into one element or an elementwise accumulate. */
#include <stdlib.h>
#include <string.h>
#include "device.h"
#include "parallel.h"

static void mean_divide(lm_tensor *r, int64_t count) {
    int64_t n = lm_numel(r) * (lm_is_complex(r->dtype) ? 2 : 1);   /* a complex result: both parts */
    char *p = lm_bytes(r);
    /* mean's result is floating or complex (LM_REDUCE_FLOAT refuses the rest before any work) */
    LM_DISPATCH_FLOAT(lm_dtype_to_real[r->dtype], T, ,
        for (int64_t i = 0; i < n; i++) ((T *)p)[i] /= (T)count;)
}

/* Full (or nearly full) reductions: each thread reduces a slice into a
 * private copy of the result, then the copies are combined. Through
 * lm_parallel_parts, so the region is timed for the busy-machine backoff. */
typedef struct {
    const lm_iter *it;
    const lm_reduce_spec *spec;
    lm_tensor *res;
    int xdt, dim;
    size_t nbytes;
    char *priv;
} private_job;

static void private_part(int t, int n, void *ctx) {
    const private_job *J = ctx;
    char *mine = J->priv + J->nbytes * (size_t)t, *base = lm_bytes(J->res);
    J->spec->identity[J->res->dtype](mine, lm_numel(J->res));
    int64_t len = J->it->shape[J->dim], b = len * t / n, e = len * (t + 1) / n;
    if (e > b) {
        lm_iter sub = *J->it;
        lm_iter_narrow(&sub, J->dim, b, e);
        sub.data[0] = mine + (sub.data[0] - base);
        lm_iter_run(&sub, J->spec->loops[LM_CPU][J->xdt], NULL);
    }
}

static void run_private(const lm_iter *it, const lm_reduce_spec *spec, lm_tensor *res, int xdt, int dim) {
    int nt = lm_get_num_threads();
    size_t nbytes = (size_t)lm_numel(res) * lm_itemsize(res->dtype);
    char *base = lm_bytes(res);
    char *priv = malloc(nbytes * (size_t)nt);
    if (!priv) { lm_iter_run(it, spec->loops[LM_CPU][xdt], NULL); return; }
    private_job J = {it, spec, res, xdt, dim, nbytes, priv};
    int used = lm_parallel_parts(nt, true, private_part, &J);
    int64_t st[2] = {(int64_t)lm_itemsize(res->dtype), (int64_t)lm_itemsize(res->dtype)};
    for (int t = 0; t < used; t++) {
        char *d[2] = {base, priv + nbytes * (size_t)t};
        spec->loops[LM_CPU][res->dtype](d, st, lm_numel(res), NULL);
    }
    free(priv);
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
        lm_iter_run_parallel(&folded, spec->rows[x->dtype], &rows, 0);
        return;
    }
    lm_loop_fn loop = spec->loops[LM_CPU][x->dtype];   /* reads x's elements, accumulates in res's dtype */
    if (!lm_should_parallelize(it.numel) || it.ndim == 0) { lm_iter_run(&it, loop, NULL); return; }
    int kept = -1, all = 0;
    for (int d = 0; d < it.ndim; d++) {
        if (it.shape[d] > it.shape[all]) all = d;
        if (it.strides[d][0] != 0 && (kept < 0 || it.shape[d] > it.shape[kept])) kept = d;
    }
    if (kept >= 0 && it.shape[kept] >= lm_get_num_threads()) lm_iter_run_parallel(&it, loop, NULL, kept);
    else run_private(&it, spec, res, x->dtype, all);
}

lm_tensor *lm_run_cpu_reduce(const lm_reduce_spec *spec, const lm_reduce_plan *p, lm_tensor *self) {
    /* float16/bfloat16 accumulating in float32 are read as they are (their loops load them); the
     * rest is cast to the accumulating dtype first */
    bool loads = self->dtype != p->acc && lm_dtype_work[self->dtype] == p->acc;
    lm_tensor *x = loads ? self : lm_cast(self, p->acc);
    if (loads) lm_retain(x);
    lm_tensor *res = x ? lm_empty(p->ndim, p->shape, p->acc, LM_CPU) : NULL;
    if (!res) { lm_release(x); return NULL; }
    spec->identity[p->acc](lm_bytes(res), lm_numel(res));
    if (lm_numel(x) > 0) run(spec, res, x, p->red);
    lm_release(x);
    if (spec->mean) mean_divide(res, p->count);
    return res;
}
