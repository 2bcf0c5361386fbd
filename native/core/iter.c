#include <string.h>
#include "iter.h"

int lm_iter_init(lm_iter *it, int nops, lm_tensor *const *ts, int ndim, const int64_t *shape) {
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->ndim = ndim;
    it->numel = 1;
    for (int d = 0; d < ndim; d++) {
        int r = ndim - 1 - d;                     /* reversed: dim 0 innermost */
        it->shape[r] = shape[d];
        it->numel *= shape[d];
    }
    for (int k = 0; k < nops; k++) {
        const lm_tensor *t = ts[k];
        int64_t item = (int64_t)lm_itemsize(t->dtype);
        it->data[k] = lm_bytes(t);
        if (t->ndim > ndim) return lm_set_error(LM_ERR_RUNTIME, "operand has more dims than the loop");
        for (int d = 0; d < t->ndim; d++) {
            int r = t->ndim - 1 - d;
            int64_t want = it->shape[r], have = t->shape[d];
            if (have != want && have != 1) {
                char a[256], b[256];
                lm_format_shape(a, sizeof a, t->ndim, t->shape);
                lm_format_shape(b, sizeof b, ndim, shape);
                return lm_set_error(LM_ERR_VALUE, "shape %s cannot be broadcast to %s", a, b);
            }
            it->strides[r][k] = have == 1 ? 0 : t->strides[d] * item;
        }
    }
    return 0;
}

static void swap_dims(lm_iter *it, int a, int b) {
    int64_t s = it->shape[a]; it->shape[a] = it->shape[b]; it->shape[b] = s;
    for (int k = 0; k < it->nops; k++) {
        int64_t t = it->strides[a][k]; it->strides[a][k] = it->strides[b][k]; it->strides[b][k] = t;
    }
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

void lm_iter_order_by(lm_iter *it, int op) {
    /* insertion sort, stable: broadcast (stride 0) dims stay where they are */
    for (int i = 1; i < it->ndim; i++) {
        for (int j = i; j > 0; j--) {
            int64_t a = abs64(it->strides[j - 1][op]), b = abs64(it->strides[j][op]);
            if (a == 0 || b == 0 || a <= b) break;
            swap_dims(it, j - 1, j);
        }
    }
    lm_iter_coalesce(it);
}

void lm_iter_coalesce(lm_iter *it) {
    int n = 0;
    for (int d = 0; d < it->ndim; d++) {
        if (it->shape[d] == 1) continue;        /* size-1 dims carry no work */
        if (n > 0) {
            int prev = n - 1, ok = 1;
            for (int k = 0; k < it->nops; k++)
                if (it->strides[d][k] != it->strides[prev][k] * it->shape[prev]) { ok = 0; break; }
            if (ok) { it->shape[prev] *= it->shape[d]; continue; }
        }
        it->shape[n] = it->shape[d];
        memcpy(it->strides[n], it->strides[d], sizeof it->strides[d]);
        n++;
    }
    it->ndim = n;
}

void lm_iter_narrow(lm_iter *it, int dim, int64_t begin, int64_t end) {
    for (int k = 0; k < it->nops; k++) it->data[k] += begin * it->strides[dim][k];
    it->numel = it->numel / (it->shape[dim] ? it->shape[dim] : 1) * (end - begin);
    it->shape[dim] = end - begin;
}

/* When one operand walks dim 1 faster than dim 0 (A.T + B), a plain row
 * walk strides through memory for that operand; tiles keep both in cache. */
#define TILE 64

static bool wants_tiling(const lm_iter *it) {
    if (it->ndim < 2 || it->shape[0] < TILE || it->shape[1] < TILE) return false;
    for (int k = 0; k < it->nops; k++) {
        int64_t s0 = it->strides[0][k] < 0 ? -it->strides[0][k] : it->strides[0][k];
        int64_t s1 = it->strides[1][k] < 0 ? -it->strides[1][k] : it->strides[1][k];
        if (s1 != 0 && s1 < s0) return true;
    }
    return false;
}

static void run_tiles(const lm_iter *it, char **base, const int64_t *inner, lm_loop_fn fn, const void *ctx) {
    int64_t n0 = it->shape[0], n1 = it->shape[1];
    char *d[LM_MAX_OPS];
    for (int64_t j0 = 0; j0 < n1; j0 += TILE) {
        int64_t je = j0 + TILE < n1 ? j0 + TILE : n1;
        for (int64_t i0 = 0; i0 < n0; i0 += TILE) {
            int64_t len = i0 + TILE < n0 ? TILE : n0 - i0;
            for (int64_t j = j0; j < je; j++) {
                for (int k = 0; k < it->nops; k++) d[k] = base[k] + j * it->strides[1][k] + i0 * it->strides[0][k];
                fn(d, inner, len, ctx);
            }
        }
    }
}

void lm_iter_run(const lm_iter *it, lm_loop_fn fn, const void *ctx) {
    if (it->numel == 0) return;
    char *data[LM_MAX_OPS];
    int64_t inner[LM_MAX_OPS] = {0};
    memcpy(data, it->data, sizeof data);
    if (it->ndim == 0) { fn(data, inner, 1, ctx); return; }
    for (int k = 0; k < it->nops; k++) inner[k] = it->strides[0][k];
    bool tiled = wants_tiling(it);
    int first = tiled ? 2 : 1;          /* dims below `first` are walked per call */
    int64_t idx[LM_MAX_DIMS] = {0};
    for (;;) {
        if (tiled) run_tiles(it, data, inner, fn, ctx);
        else fn(data, inner, it->shape[0], ctx);
        int d = first;
        for (; d < it->ndim; d++) {
            for (int k = 0; k < it->nops; k++) data[k] += it->strides[d][k];
            if (++idx[d] < it->shape[d]) break;
            for (int k = 0; k < it->nops; k++) data[k] -= it->strides[d][k] * it->shape[d];
            idx[d] = 0;
        }
        if (d >= it->ndim) return;
    }
}

/* threads take contiguous slices of one dim */
typedef struct { const lm_iter *it; lm_loop_fn fn; const void *ctx; int dim; } slices;

static void run_slice(int64_t begin, int64_t end, void *vs) {
    const slices *S = vs;
    lm_iter sub = *S->it;
    lm_iter_narrow(&sub, S->dim, begin, end);
    lm_iter_run(&sub, S->fn, S->ctx);
}

void lm_iter_run_parallel(const lm_iter *it, lm_loop_fn fn, const void *ctx, int dim) {
    if (it->ndim == 0 || !lm_should_parallelize(it->numel)) { lm_iter_run(it, fn, ctx); return; }
    if (dim < 0) {
        dim = it->ndim - 1;
        for (int d = 0; d < it->ndim; d++) if (it->shape[d] > it->shape[dim]) dim = d;
    }
    slices S = {it, fn, ctx, dim};
    lm_parallel_for(it->shape[dim], it->numel, run_slice, &S);
}
