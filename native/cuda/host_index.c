/* gather's, scatter's and index_add's own CUDA paths: the CPU kernels' checks (native/cpu/index_util.h),
 * then index.cu's kernels. An index the device finds out of range is reported as the CPU reports it
 * (its first such value in C order, read from a host copy), and the result is dropped. */
#include "cuda_host.h"
#include "index_util.h"
#include "loom_ops.h"
#include "ops_support.h"   /* LM_SCALAR_AS */

/* a zeroed device int for a kernel to flag a bad index in, or NULL with the error set */
static lm_tensor *new_flag(const char *op) {
    int64_t one = 1;
    lm_tensor *flag = lm_empty(1, &one, LM_INT32, LM_CUDA);
    if (flag && lm_cuda_check(lm_cuda_backend_loaded()->memset0(lm_bytes(flag), 4), op)) {
        lm_release(flag);
        return NULL;
    }
    return flag;
}

/* 0 when the kernel left the flag clear; else -1 with the CPU's error for idx's (contiguous int64)
 * first value out of [0, size) */
static int flag_error(lm_tensor *flag, lm_tensor *idx, int d, int64_t size) {
    lm_scalar v;
    if (lm_item(flag, &v)) return -1;
    if (!v.i) return 0;
    lm_tensor *h = lm_to_host(idx);
    if (!h) return -1;
    const int64_t *ip = (const int64_t *)lm_bytes(h);
    int64_t n = lm_numel(h), i = 0;
    while (i < n && ip[i] >= 0 && ip[i] < size) i++;
    int err = i < n ? lm_index_bound_error(ip[i], d, size)
                    : lm_set_error(LM_ERR_RUNTIME, "index out of range on the device, but not on the host");
    lm_release(h);
    return err;
}

/* the geometry of index (int64, contiguous) against self (nd view S) and src (or NULL) along d */
static lm_cuda_gather_geom geom_of(const lm_nd *S, lm_tensor *idx, lm_tensor *src, int d) {
    lm_nd I, R;
    lm_as_nd(idx, &I);
    if (src) lm_as_nd(src, &R);
    lm_cuda_gather_geom G = {.nd = I.nd, .d = d, .size = S->shape[d]};
    for (int k = 0; k < I.nd; k++) {
        G.shape[k] = I.shape[k];
        G.self_strides[k] = S->strides[k];
        G.src_strides[k] = src ? R.strides[k] : 0;
    }
    return G;
}

/* idx as a contiguous tensor (idx released), or NULL with the error set */
static lm_tensor *contiguous_index(lm_tensor *idx) {
    if (!idx) return NULL;
    lm_tensor *c = lm_contiguous(idx);
    lm_release(idx);
    return c;
}

lm_tensor *lm_cuda_gather(lm_tensor *self, int64_t dim, lm_tensor *index) {
    static lm_cuda_gather_fn kern;
    int d;
    lm_tensor *idx = contiguous_index(lm_gather_scatter_index(self, dim, index, NULL, &d));
    if (!idx) return NULL;
    lm_nd S;
    lm_as_nd(self, &S);
    lm_cuda_gather_geom G = geom_of(&S, idx, NULL, d);
    lm_tensor *out = lm_empty(index->ndim, index->shape, self->dtype, LM_CUDA), *flag = out ? new_flag("gather") : NULL;
    int err = !flag || (!kern && !(kern = (lm_cuda_gather_fn)lm_cuda_kernel("gather"))) ||
              lm_cuda_check(kern(self->dtype, &G, lm_bytes(self), (const int64_t *)lm_bytes(idx), lm_bytes(out),
                                 (int *)lm_bytes(flag)), "gather") ||
              flag_error(flag, idx, d, S.shape[d]);
    lm_release(flag);
    lm_release(idx);
    if (err) {
        lm_release(out);
        return NULL;
    }
    return out;
}

enum { SCATTER_SRC, SCATTER_VALUE, SCATTER_ADD };   /* index.cu's modes */

static lm_tensor *scatter(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *src, lm_scalar value, int mode,
                          const char *op) {
    static lm_cuda_scatter_fn kern;
    int d;
    lm_tensor *idx = contiguous_index(lm_gather_scatter_index(self, dim, index, src, &d));
    if (!idx) return NULL;
    unsigned char fill[16] = {0};
    if (mode == SCATTER_VALUE) LM_DISPATCH(self->dtype, T, , T f = LM_SCALAR_AS(T, value); memcpy(fill, &f, sizeof f);)
    lm_tensor *out = lm_empty(self->ndim, self->shape, self->dtype, LM_CUDA), *flag = NULL;
    int err = !out || lm_copy_into(out, self) || !(flag = new_flag(op));
    if (!err) {
        lm_nd O;
        lm_as_nd(out, &O);
        lm_cuda_gather_geom G = geom_of(&O, idx, src, d);
        err = (!kern && !(kern = (lm_cuda_scatter_fn)lm_cuda_kernel("scatter"))) ||
              lm_cuda_check(kern(self->dtype, mode, &G, lm_bytes(out), (const int64_t *)lm_bytes(idx),
                                 src ? lm_bytes(src) : NULL, fill, (int *)lm_bytes(flag)), op) ||
              flag_error(flag, idx, d, O.shape[d]);
    }
    lm_release(flag);
    lm_release(idx);
    if (err) {
        lm_release(out);
        return NULL;
    }
    return out;
}

static const lm_scalar NO_VALUE = {0.0, 0, 1};

lm_tensor *lm_cuda_scatter_src(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *src) {
    return scatter(self, dim, index, src, NO_VALUE, SCATTER_SRC, "scatter");
}

lm_tensor *lm_cuda_scatter_value(lm_tensor *self, int64_t dim, lm_tensor *index, lm_scalar value) {
    if (lm_check_scalar_fits(value, self->dtype)) return NULL;
    return scatter(self, dim, index, NULL, value, SCATTER_VALUE, "scatter");
}

lm_tensor *lm_cuda_scatter_add(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *src) {
    return scatter(self, dim, index, src, NO_VALUE, SCATTER_ADD, "scatter_add");
}

lm_tensor *lm_cuda_index_add(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *source, lm_scalar alpha) {
    static lm_cuda_index_add_fn kern;
    int d;
    lm_tensor *idx = lm_index_add_index(self, dim, index, source, alpha, &d);
    if (!idx) return NULL;
    lm_nd S;
    lm_as_nd(self, &S);
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < d; k++) outer *= S.shape[k];
    for (int k = d + 1; k < S.nd; k++) inner *= S.shape[k];
    unsigned char a[16] = {0};
    LM_DISPATCH(self->dtype, T, , T v = LM_SCALAR_AS(T, alpha); memcpy(a, &v, sizeof v);)
    lm_tensor *src = lm_contiguous(source), *out = NULL;
    int err = !src || !(out = lm_empty(self->ndim, self->shape, self->dtype, LM_CUDA)) || lm_copy_into(out, self) ||
              (!kern && !(kern = (lm_cuda_index_add_fn)lm_cuda_kernel("index_add"))) ||
              lm_cuda_check(kern(self->dtype, outer, S.shape[d], lm_numel(idx), inner, lm_bytes(out),
                                 (const int64_t *)lm_bytes(idx), lm_bytes(src), a), "index_add");
    lm_release(src);
    lm_release(idx);
    if (err) {
        lm_release(out);
        return NULL;
    }
    return out;
}
