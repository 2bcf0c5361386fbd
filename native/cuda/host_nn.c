/* loom._C's calls into the hand-written CUDA kernels of nn ops (cuda_kernels.h):
 * each kernel is looked up by name once. */
#include "cuda_host.h"
#include "cuda_kernels.h"

void *lm_cuda_kernel(const char *name) {
    const lm_cuda_backend *B = lm_cuda_backend_loaded();
    void *k = B && B->kernel ? B->kernel(name) : NULL;
    if (!k) lm_set_error(LM_ERR_NOTIMPL, "the CUDA library has no kernel '%s' (rebuild loom)", name);
    return k;
}

int lm_cuda_softmax_run(int dtype, int64_t outer, int64_t R, int64_t inner, const void *a, const void *y, void *out,
                        bool is_log, bool backward) {
    static lm_cuda_softmax_fn k;
    if (!k && !(k = (lm_cuda_softmax_fn)lm_cuda_kernel("softmax"))) return -1;
    return lm_cuda_check(k(dtype, outer, R, inner, a, y, out, is_log, backward), backward ? "softmax_backward" : "softmax");
}

int lm_cuda_index_rows_run(lm_tensor *src, int d, lm_tensor *idx, lm_tensor *out) {
    static lm_cuda_index_rows_fn k;
    if (!k && !(k = (lm_cuda_index_rows_fn)lm_cuda_kernel("index_rows"))) return -1;
    lm_tensor *s = lm_contiguous(src);
    if (!s) return -1;
    int64_t outer = 1, inner = 1, rows = s->ndim ? s->shape[d] : 1;
    for (int k2 = 0; k2 < d; k2++) outer *= s->shape[k2];
    for (int k2 = d + 1; k2 < s->ndim; k2++) inner *= s->shape[k2];
    int err = lm_cuda_check(k((int)lm_itemsize(s->dtype), outer, lm_numel(idx), inner, rows, lm_bytes(s),
                              (const int64_t *)lm_bytes(idx), lm_bytes(out), NULL), "index_select");
    lm_release(s);
    return err;
}

/* The CUDA generator's state: Philox's key and the next unused counter. */
static uint64_t seed = 67280421310721ULL, offset;

void lm_cuda_manual_seed(uint64_t s) { seed = s; offset = 0; }

int lm_cuda_random_fill(lm_tensor *t, int kind, double a, double b) {
    static lm_cuda_random_fn k;
    if (!k && !(k = (lm_cuda_random_fn)lm_cuda_kernel("random"))) return -1;
    int64_t n = lm_numel(t);
    int err = lm_cuda_check(k(kind, t->dtype, lm_bytes(t), n, seed, offset, a, b), "random");
    /* counters used: 4 float32 uniforms/normals each, else 2 values each */
    offset += (uint64_t)(t->dtype == LM_FLOAT32 && kind != 2 ? (n + 3) / 4 : (n + 1) / 2);
    return err;
}

int lm_cuda_adam_run(int dtype, int64_t n, void *p, const void *g, void *m, void *v, const double *consts) {
    static lm_cuda_adam_fn k;
    if (!k && !(k = (lm_cuda_adam_fn)lm_cuda_kernel("adam"))) return -1;
    return lm_cuda_check(k(dtype, n, p, g, m, v, consts), "adam_step_");
}

int lm_cuda_nll_run(int dtype, bool backward, int64_t N, int64_t C, int64_t D, const void *a, const int64_t *t,
                    const void *w, int64_t ignore, int red, double scale, void *vals, void *out) {
    static lm_cuda_nll_fn k;
    if (!k && !(k = (lm_cuda_nll_fn)lm_cuda_kernel("nll"))) return -1;
    return lm_cuda_check(k(dtype, backward, N, C, D, a, t, w, ignore, red, scale, vals, out),
                         backward ? "nll_loss_backward" : "nll_loss");
}

int lm_cuda_max_pool_run(int dtype, const lm_cuda_pool_geom *G, const void *x, void *vals, int64_t *idx) {
    static lm_cuda_max_pool_fn k;
    if (!k && !(k = (lm_cuda_max_pool_fn)lm_cuda_kernel("max_pool"))) return -1;
    return lm_cuda_check(k(dtype, G, x, vals, idx), "max_pool2d");
}

int lm_cuda_max_pool_backward_run(int dtype, int64_t planes, int64_t OL, int64_t HW, const void *g,
                                  const int64_t *idx, void *dx, bool *bad) {
    static lm_cuda_max_pool_backward_fn k;
    if (!k && !(k = (lm_cuda_max_pool_backward_fn)lm_cuda_kernel("max_pool_backward"))) return -1;
    int64_t one = 1;
    lm_tensor *flag = lm_empty(1, &one, LM_INT32, LM_CUDA);
    lm_scalar v;
    int err = !flag || lm_cuda_check(lm_cuda_backend_loaded()->memset0(lm_bytes(flag), 4), "max_pool2d_backward") ||
              lm_cuda_check(k(dtype, planes, OL, HW, g, idx, dx, (int *)lm_bytes(flag)), "max_pool2d_backward") ||
              lm_item(flag, &v);
    *bad = !err && v.i != 0;
    lm_release(flag);
    return err ? -1 : 0;
}

int lm_cuda_avg_pool_run(int dtype, const lm_cuda_pool_geom *G, bool adaptive, bool backward, bool count_include_pad,
                         int64_t divisor_override, const void *src, void *dst) {
    static lm_cuda_avg_pool_fn k;
    if (!k && !(k = (lm_cuda_avg_pool_fn)lm_cuda_kernel("avg_pool"))) return -1;
    const char *what = adaptive ? (backward ? "adaptive_avg_pool2d_backward" : "adaptive_avg_pool2d")
                                : (backward ? "avg_pool2d_backward" : "avg_pool2d");
    return lm_cuda_check(k(dtype, G, adaptive, backward, count_include_pad, divisor_override, src, dst), what);
}
