/* sort, argsort and topk along one dim: a stable merge sort of each row.
 * NaN sorts above every number (last ascending, first descending), and equal
 * values keep their order, as PyTorch's stable sort; topk is the head of the
 * sorted row. */
#include <stdlib.h>
#include "index_util.h"
#include "loom_ops.h"

/* `a` goes before `b`: ascending with NaN last, or descending with NaN first. */
#define BEFORE(a, b, desc) ((desc) ? ((a) > (b) || ((a) != (a) && (b) == (b))) \
                                   : ((a) < (b) || ((b) != (b) && (a) == (a))))

/* Bottom-up merge sort of key[0..n) carrying ix; tk/tix are scratch of the same size. */
#define DEFINE_MERGE_SORT(T, NAME)                                                          \
    static void NAME(T *key, int64_t *ix, T *tk, int64_t *tix, int64_t n, bool desc) {     \
        T *k = key, *kk = tk;                                                               \
        int64_t *x = ix, *xx = tix;                                                         \
        for (int64_t w = 1; w < n; w *= 2) {                                                \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                     \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n; \
                int64_t i = lo, j = mid, o = lo;                                            \
                while (i < mid && j < hi) {                                                 \
                    if (BEFORE(k[j], k[i], desc)) { kk[o] = k[j]; xx[o++] = x[j++]; }       \
                    else { kk[o] = k[i]; xx[o++] = x[i++]; }                                \
                }                                                                           \
                while (i < mid) { kk[o] = k[i]; xx[o++] = x[i++]; }                         \
                while (j < hi) { kk[o] = k[j]; xx[o++] = x[j++]; }                          \
            }                                                                               \
            T *t = k; k = kk; kk = t;                                                       \
            int64_t *u = x; x = xx; xx = u;                                                 \
        }                                                                                   \
        if (k != key) { memcpy(key, k, sizeof(T) * n); memcpy(ix, x, sizeof(int64_t) * n); } \
    }

#define MERGE_SORT_OF(E, T, N) DEFINE_MERGE_SORT(T, msort_##N)
LM_FOR_EACH_DTYPE(MERGE_SORT_OF)
LM_FOR_EACH_BAREBONES(MERGE_SORT_OF)

/* the rows of one dtype: gather each row, sort it with MSORT, write its first k */
#define SORT_ROWS(T, MSORT)                                                                     \
    {                                                                                           \
        T *key = (T *)(tix + (n ? n : 1)), *tk = key + (n ? n : 1);                             \
        const T *src = (const T *)lm_bytes(self);                                               \
        T *vp = vals ? (T *)lm_bytes(vals) : NULL;                                              \
        int64_t *ip = (int64_t *)lm_bytes(inds);                                                \
        for (int64_t r = 0; r < rows; r++, lm_next_pos(S.nd, rshape, pos)) {                    \
            const T *row = src + lm_pos_offset(S.nd, pos, S.strides);                           \
            for (int64_t i = 0; i < n; i++) { key[i] = row[i * S.strides[d]]; ix[i] = i; }      \
            MSORT(key, ix, tk, tix, n, desc);                                                   \
            int64_t o = lm_pos_offset(O.nd, pos, O.strides);                                    \
            for (int64_t i = 0; i < k; i++) {                                                   \
                ip[o + i * O.strides[d]] = ix[i];                                               \
                if (vp) vp[o + i * O.strides[d]] = key[i];                                      \
            }                                                                                   \
        }                                                                                       \
    }
#define SORT_CASE(E, T, N) case E: SORT_ROWS(T, msort_##N) break;

/* Sort every row of self along dim and keep the first k of each (k < 0: all).
 * values may be NULL (argsort). */
static int sort_rows(lm_tensor *self, int64_t dim, bool desc, int64_t k, lm_tensor **values, lm_tensor **indices) {
    int d;
    if (lm_wrap_dim(dim, self->ndim, &d)) return -1;
    lm_nd S;
    lm_as_nd(self, &S);
    int64_t n = S.shape[d];
    if (k < 0) k = n;
    else if (k > n) return lm_set_error(LM_ERR_RUNTIME, "selected index k out of range (k = %lld, size %lld along dim %d)",
                                        (long long)k, (long long)n, d);
    int64_t shape[LM_MAX_DIMS];
    memcpy(shape, S.shape, sizeof shape);
    shape[d] = k;
    lm_tensor *vals = values ? lm_empty(self->ndim, shape, self->dtype, self->device) : NULL;
    lm_tensor *inds = lm_empty(self->ndim, shape, LM_INT64, self->device);
    size_t item = lm_itemsize(self->dtype);
    char *scratch = malloc((size_t)(n ? n : 1) * 2 * (item + sizeof(int64_t)));
    if (!inds || (values && !vals) || !scratch) {
        if (!scratch) lm_set_error(LM_ERR_MEMORY, "out of memory sorting rows of %lld elements", (long long)n);
        lm_release(vals); lm_release(inds); free(scratch);
        return -1;
    }
    lm_nd O;
    lm_as_nd(inds, &O);   /* vals has the same contiguous strides */
    int64_t rshape[LM_MAX_DIMS], rows = 1, pos[LM_MAX_DIMS] = {0};
    memcpy(rshape, S.shape, sizeof rshape);
    rshape[d] = 1;
    for (int j = 0; j < S.nd; j++) rows *= rshape[j];
    int64_t *ix = (int64_t *)scratch, *tix = ix + (n ? n : 1);
    void *gil = rows * n > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    switch (self->dtype) { LM_FOR_EACH_DTYPE(SORT_CASE) LM_FOR_EACH_BAREBONES(SORT_CASE) default: break; }
    lm_gil_reacquire(gil);
    free(scratch);
    if (values) *values = vals;
    *indices = inds;
    return 0;
}

/* stable=: every sort here is stable (a merge sort), so the flag asks for nothing more */
int lm_cpu_sort(lm_tensor *self, int64_t dim, bool descending, bool stable, lm_tensor **out) {
    (void)stable;
    return sort_rows(self, dim, descending, -1, &out[0], &out[1]);
}

lm_tensor *lm_cpu_argsort(lm_tensor *self, int64_t dim, bool descending, bool stable) {
    (void)stable;
    lm_tensor *i = NULL;
    return sort_rows(self, dim, descending, -1, NULL, &i) ? NULL : i;
}

int lm_cpu_topk(lm_tensor *self, int64_t k, int64_t dim, bool largest, bool sorted, lm_tensor **out) {
    (void)sorted;   /* the head of a sorted row is always in order */
    if (k < 0) return lm_set_error(LM_ERR_RUNTIME, "selected index k out of range (k = %lld)", (long long)k);
    return sort_rows(self, dim, largest, k, &out[0], &out[1]);
}
