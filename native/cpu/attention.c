/* Fused scaled-dot-product attention, forward and backward, for query (..., L, D), key (..., S, D),
 * value (..., S, Dv) with the same leading dims.
 *
 * Rows of the query go in blocks of BR: a block's scores (BR x S) are one gemm, softmaxed in place,
 * and multiplied into the output by a second gemm, so the working memory is O(BR * S) per thread and
 * the (L, S) matrix never exists; the forward keeps each row's logsumexp (O(L)) for the backward,
 * which recomputes the block's probabilities from it. The causal mask (key j visible to query i when
 * j <= i, PyTorch's top-left alignment) also shortens each block's gemms to the keys it can see. */
#include <math.h>
#include <stdlib.h>
#include "loom.h"
#include "loom_ops.h"
#include "gemm.h"
#include "iter.h"
#include "parallel.h"

#define BR 64

typedef struct { int64_t bh, L, S, D, Dv; bool causal; double scale; } dims;

static int64_t visible(const dims *d, int64_t row) {   /* keys row may attend to */
    return d->causal ? (row + 1 < d->S ? row + 1 : d->S) : d->S;
}

#define SDPA_FWD(T, dt)                                                                                      \
static void fwd_##T(const dims *d, int64_t b, const T *q, const T *k, const T *v, T *o, T *lse, T *s) {       \
    q += b * d->L * d->D; k += b * d->S * d->D; v += b * d->S * d->Dv; o += b * d->L * d->Dv; lse += b * d->L; \
    for (int64_t r0 = 0; r0 < d->L; r0 += BR) {                                                              \
        int64_t rows = d->L - r0 < BR ? d->L - r0 : BR, n = visible(d, r0 + rows - 1);                       \
        if (n > 0)                                                                                           \
            lm_gemm(dt, rows, n, d->D, (lm_mat){(const char *)(q + r0 * d->D), d->D, 1},                     \
                    (lm_mat){(const char *)k, 1, d->D}, (char *)s, n, false);                                \
        for (int64_t r = 0; r < rows; r++) {                                                                 \
            T *sr = s + r * n;                                                                               \
            int64_t m_ = visible(d, r0 + r);                                                                 \
            T mx = -INFINITY;                                                                                \
            for (int64_t j = 0; j < m_; j++) { sr[j] *= (T)d->scale; mx = sr[j] > mx ? sr[j] : mx; }        \
            T sum = 0;                                                                                       \
            for (int64_t j = 0; j < m_; j++) { sr[j] = (T)exp(sr[j] - mx); sum += sr[j]; }                  \
            for (int64_t j = 0; j < m_; j++) sr[j] /= sum;                                                   \
            for (int64_t j = m_; j < n; j++) sr[j] = 0;                                                      \
            lse[r0 + r] = m_ > 0 ? mx + (T)log(sum) : (T)-INFINITY;                                          \
        }                                                                                                    \
        if (n > 0)                                                                                           \
            lm_gemm(dt, rows, d->Dv, n, (lm_mat){(const char *)s, n, 1}, (lm_mat){(const char *)v, d->Dv, 1}, \
                    (char *)(o + r0 * d->Dv), d->Dv, false);                                                 \
        else                                                                                                 \
            for (int64_t i = 0; i < rows * d->Dv; i++) o[r0 * d->Dv + i] = NAN;                             \
    }                                                                                                        \
}

#define SDPA_BWD(T, dt)                                                                                      \
static void bwd_##T(const dims *d, int64_t b, const T *q, const T *k, const T *v, const T *o, const T *lse,   \
                    const T *go, T *gq, T *gk, T *gv, T *p, T *dp) {                                         \
    int64_t D = d->D, Dv = d->Dv;                                                                            \
    q += b * d->L * D; k += b * d->S * D; v += b * d->S * Dv; o += b * d->L * Dv; lse += b * d->L;          \
    go += b * d->L * Dv; gq += b * d->L * D; gk += b * d->S * D; gv += b * d->S * Dv;                        \
    for (int64_t i = 0; i < d->S * D; i++) gk[i] = 0;                                                        \
    for (int64_t i = 0; i < d->S * Dv; i++) gv[i] = 0;                                                       \
    for (int64_t r0 = 0; r0 < d->L; r0 += BR) {                                                              \
        int64_t rows = d->L - r0 < BR ? d->L - r0 : BR, n = visible(d, r0 + rows - 1);                       \
        if (n == 0) { for (int64_t i = 0; i < rows * D; i++) gq[r0 * D + i] = 0; continue; }                \
        lm_gemm(dt, rows, n, D, (lm_mat){(const char *)(q + r0 * D), D, 1}, (lm_mat){(const char *)k, 1, D}, \
                (char *)p, n, false);                                                                        \
        lm_gemm(dt, rows, n, Dv, (lm_mat){(const char *)(go + r0 * Dv), Dv, 1},                              \
                (lm_mat){(const char *)v, 1, Dv}, (char *)dp, n, false);                                     \
        for (int64_t r = 0; r < rows; r++) {                                                                 \
            T *pr = p + r * n, *dr = dp + r * n, delta = 0;                                                  \
            const T *gor = go + (r0 + r) * Dv, *orow = o + (r0 + r) * Dv;                                    \
            for (int64_t c = 0; c < Dv; c++) delta += gor[c] * orow[c];                                      \
            int64_t m_ = visible(d, r0 + r);                                                                 \
            T l = lse[r0 + r];                                                                               \
            for (int64_t j = 0; j < m_; j++) {                                                               \
                pr[j] = (T)exp(pr[j] * (T)d->scale - l);                                                     \
                dr[j] = pr[j] * (dr[j] - delta) * (T)d->scale;                                               \
            }                                                                                                \
            for (int64_t j = m_; j < n; j++) { pr[j] = 0; dr[j] = 0; }                                       \
        }                                                                                                    \
        /* dq = dS k; dk += dS^T q; dv += P^T dO */                                                          \
        lm_gemm(dt, rows, D, n, (lm_mat){(const char *)dp, n, 1}, (lm_mat){(const char *)k, D, 1},           \
                (char *)(gq + r0 * D), D, false);                                                            \
        lm_gemm(dt, n, D, rows, (lm_mat){(const char *)dp, 1, n}, (lm_mat){(const char *)(q + r0 * D), D, 1}, \
                (char *)gk, D, true);                                                                        \
        lm_gemm(dt, n, Dv, rows, (lm_mat){(const char *)p, 1, n},                                            \
                (lm_mat){(const char *)(go + r0 * Dv), Dv, 1}, (char *)gv, Dv, true);                        \
    }                                                                                                        \
}

SDPA_FWD(float, LM_FLOAT32)
SDPA_FWD(double, LM_FLOAT64)
SDPA_BWD(float, LM_FLOAT32)
SDPA_BWD(double, LM_FLOAT64)

static int check(lm_tensor *q, lm_tensor *k, lm_tensor *v, dims *d, bool is_causal, double scale) {
    if (q->ndim < 2 || k->ndim != q->ndim || v->ndim != q->ndim)
        return lm_set_error(LM_ERR_VALUE, "expected query, key and value of the same number (>= 2) of dims, got "
                            "%d, %d and %d", q->ndim, k->ndim, v->ndim);
    int nd = q->ndim;
    d->bh = 1;
    for (int i = 0; i < nd - 2; i++) {
        if (k->shape[i] != q->shape[i] || v->shape[i] != q->shape[i])
            return lm_set_error(LM_ERR_VALUE, "query, key and value must share their leading dims (dim %d: %lld, "
                                "%lld, %lld)", i, (long long)q->shape[i], (long long)k->shape[i],
                                (long long)v->shape[i]);
        d->bh *= q->shape[i];
    }
    d->L = q->shape[nd - 2]; d->D = q->shape[nd - 1]; d->S = k->shape[nd - 2]; d->Dv = v->shape[nd - 1];
    if (k->shape[nd - 1] != d->D)
        return lm_set_error(LM_ERR_VALUE, "query's last dim %lld differs from key's %lld", (long long)d->D,
                            (long long)k->shape[nd - 1]);
    if (v->shape[nd - 2] != d->S)
        return lm_set_error(LM_ERR_VALUE, "key has %lld positions but value has %lld", (long long)d->S,
                            (long long)v->shape[nd - 2]);
    if (k->dtype != q->dtype || v->dtype != q->dtype)
        return lm_set_error(LM_ERR_TYPE, "query, key and value must have one dtype, got %s, %s and %s",
                            lm_dtype_name(q->dtype), lm_dtype_name(k->dtype), lm_dtype_name(v->dtype));
    d->causal = is_causal;
    d->scale = scale;
    return 0;
}

/* Runs fn(b, scratch) for every batch-head b: threads split the batch-heads (each gemm then single-threaded),
 * or, with one batch-head, the gemms use BLAS's threads. */
#define FOR_EACH_BH(d, scratch_elems, T, body)                                                               \
    do {                                                                                                     \
        bool par_ = (d).bh > 1 && lm_should_parallelize((d).bh * (d).L * (d).S * (d).D);                      \
        int token_ = par_ ? lm_gemm_serial_begin() : 0;                                                      \
        int failed_ = 0, nt_ = par_ ? lm_get_num_threads() : 1;                                              \
        int64_t start_ = lm_parallel_now(), own_ = start_, last_ = start_;                                   \
        /* set_num_threads' count, and each thread's finish (nowait: not the loop's barrier) timed for       \
         * the busy-machine backoff (parallel.h) */                                                          \
        bool team_ = par_ && !lm_parallel_backing_off();   /* a busy machine: the same work inline */        \
        _Pragma("omp parallel if (team_) num_threads(nt_)")                                                  \
        {                                                                                                    \
            T *scratch = malloc(sizeof(T) * (size_t)(scratch_elems));                                        \
            if (!scratch) { _Pragma("omp atomic write") failed_ = 1; }                                       \
            else {                                                                                           \
                if ((d).bh > 1) lm_parallel_enter();   /* its gemms stay on this thread, team or not */    \
                _Pragma("omp for schedule(dynamic) nowait")                                                  \
                for (int64_t b = 0; b < (d).bh; b++) { body; }                                              \
                if ((d).bh > 1) lm_parallel_leave();                                                         \
            }                                                                                                \
            free(scratch);                                                                                   \
            int64_t e_ = lm_parallel_now();                                                                  \
            _Pragma("omp critical(lm_slices)")                                                               \
            {                                                                                                \
                if (lm_parallel_thread() == 0) own_ = e_;                                                    \
                if (e_ > last_) last_ = e_;                                                                  \
            }                                                                                                \
        }                                                                                                    \
        if (par_) lm_gemm_serial_end(token_);                                                                \
        if (team_) lm_parallel_judge(start_, own_, last_);                                                   \
        if (failed_) err = lm_set_error(LM_ERR_MEMORY, "out of memory for attention scratch");              \
    } while (0)

int lm_cpu_sdpa_flash(lm_tensor *query, lm_tensor *key, lm_tensor *value, bool is_causal, double scale,
                      lm_tensor **out) {
    dims d;
    if (check(query, key, value, &d, is_causal, scale)) return -1;
    lm_tensor *q = lm_contiguous(query), *k = q ? lm_contiguous(key) : NULL, *v = k ? lm_contiguous(value) : NULL;
    int64_t oshape[LM_MAX_DIMS];
    for (int i = 0; i < query->ndim; i++) oshape[i] = query->shape[i];
    oshape[query->ndim - 1] = d.Dv;
    lm_tensor *o = v ? lm_empty(query->ndim, oshape, query->dtype, query->device) : NULL;
    lm_tensor *lse = o ? lm_empty(query->ndim - 1, query->shape, query->dtype, query->device) : NULL;
    int err = lse ? 0 : -1;
    if (!err) {
        void *gil = lm_gil_release();
        int64_t nscratch = (int64_t)BR * (d.S > 0 ? d.S : 1);
        LM_DISPATCH_FLOAT(query->dtype, T, ,
            const T *qp = (const T *)lm_bytes(q); const T *kp = (const T *)lm_bytes(k);
            const T *vp = (const T *)lm_bytes(v); T *op = (T *)lm_bytes(o); T *lp = (T *)lm_bytes(lse);
            FOR_EACH_BH(d, nscratch, T, _Generic((T)0, float: fwd_float, double: fwd_double)(
                &d, b, (const void *)qp, (const void *)kp, (const void *)vp, (void *)op, (void *)lp,
                (void *)scratch));)
        lm_gil_reacquire(gil);
    }
    if (q) lm_release(q);
    if (k) lm_release(k);
    if (v) lm_release(v);
    if (err) {
        if (o) lm_release(o);
        if (lse) lm_release(lse);
        return -1;
    }
    out[0] = o;
    out[1] = lse;
    return 0;
}

/* sdpa_flash_backward is public, so output and logsumexp may come from anywhere but sdpa_flash: the loops
 * index them by query's L and value's Dv, and read them as query's dtype, so any other shape or dtype
 * would be read past its end. */
static int check_saved(const lm_tensor *query, const dims *d, const lm_tensor *output, const lm_tensor *lse) {
    int nd = query->ndim;
    bool ok = output->ndim == nd && lse->ndim == nd - 1 && output->dtype == query->dtype && lse->dtype == query->dtype;
    for (int i = 0; ok && i < nd - 1; i++)
        ok = output->shape[i] == query->shape[i] && lse->shape[i] == query->shape[i];
    if (ok && output->shape[nd - 1] == d->Dv)
        return 0;
    int64_t want[LM_MAX_DIMS];
    for (int i = 0; i < nd; i++) want[i] = query->shape[i];
    want[nd - 1] = d->Dv;
    char wo[256], wl[256], go[256], gl[256];
    lm_format_shape(wo, sizeof wo, nd, want);
    lm_format_shape(wl, sizeof wl, nd - 1, want);
    lm_format_shape(go, sizeof go, output->ndim, output->shape);
    lm_format_shape(gl, sizeof gl, lse->ndim, lse->shape);
    return lm_set_error(LM_ERR_VALUE, "output and logsumexp must be sdpa_flash's for this query and value: "
                        "%s and %s of dtype %s, got %s of %s and %s of %s", wo, wl, lm_dtype_name(query->dtype),
                        go, lm_dtype_name(output->dtype), gl, lm_dtype_name(lse->dtype));
}

int lm_cpu_sdpa_flash_backward(lm_tensor *grad_out, lm_tensor *query, lm_tensor *key, lm_tensor *value,
                               lm_tensor *output, lm_tensor *logsumexp, bool is_causal, double scale,
                               lm_tensor **out) {
    dims d;
    if (check(query, key, value, &d, is_causal, scale) || check_saved(query, &d, output, logsumexp)) return -1;
    if (!lm_same_shape(grad_out, output) || output->dtype != query->dtype || grad_out->dtype != query->dtype)
        return lm_set_error(LM_ERR_VALUE, "grad_out must match the forward's output in shape and dtype");
    lm_tensor *in[6] = {query, key, value, output, logsumexp, grad_out}, *c[6] = {0};
    int err = 0;
    for (int i = 0; i < 6 && !err; i++) err = (c[i] = lm_contiguous(in[i])) ? 0 : -1;
    lm_tensor *gq = err ? NULL : lm_empty(query->ndim, query->shape, query->dtype, query->device);
    lm_tensor *gk = gq ? lm_empty(key->ndim, key->shape, key->dtype, key->device) : NULL;
    lm_tensor *gv = gk ? lm_empty(value->ndim, value->shape, value->dtype, value->device) : NULL;
    if (!gv) err = -1;
    if (!err) {
        void *gil = lm_gil_release();
        int64_t nscratch = 2 * (int64_t)BR * (d.S > 0 ? d.S : 1);
        LM_DISPATCH_FLOAT(query->dtype, T, ,
            const T *qp = (const T *)lm_bytes(c[0]); const T *kp = (const T *)lm_bytes(c[1]);
            const T *vp = (const T *)lm_bytes(c[2]); const T *op = (const T *)lm_bytes(c[3]);
            const T *lp = (const T *)lm_bytes(c[4]); const T *gop = (const T *)lm_bytes(c[5]);
            T *gqp = (T *)lm_bytes(gq); T *gkp = (T *)lm_bytes(gk); T *gvp = (T *)lm_bytes(gv);
            FOR_EACH_BH(d, nscratch, T, _Generic((T)0, float: bwd_float, double: bwd_double)(
                &d, b, (const void *)qp, (const void *)kp, (const void *)vp, (const void *)op, (const void *)lp,
                (const void *)gop, (void *)gqp, (void *)gkp, (void *)gvp, (void *)scratch,
                (void *)(scratch + (int64_t)BR * (d.S > 0 ? d.S : 1))));)
        lm_gil_reacquire(gil);
    }
    for (int i = 0; i < 6; i++) if (c[i]) lm_release(c[i]);
    if (err) {
        if (gq) lm_release(gq);
        if (gk) lm_release(gk);
        if (gv) lm_release(gv);
        return -1;
    }
    out[0] = gq; out[1] = gk; out[2] = gv;
    return 0;
}
