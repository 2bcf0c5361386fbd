/* Shared by the indexing, sorting and scan kernels: index tensors as int64,
 * N-d position counters, and the size above which a kernel lets the GIL go. */
#ifndef LM_INDEX_UTIL_H
#define LM_INDEX_UTIL_H
#include <string.h>
#include "loom.h"

#define LM_INDEX_GIL_WORK (1 << 16)   /* below this, releasing the GIL costs more than it frees */

/* A new reference to `index` as int64 (int32 widened when allowed), or NULL with a TypeError. */
static inline lm_tensor *lm_index_as_long(lm_tensor *index, const char *what, bool allow_int32) {
    if (index->dtype == LM_INT64 || (allow_int32 && index->dtype == LM_INT32)) return lm_cast(index, LM_INT64);
    lm_set_error(LM_ERR_TYPE, "Expected dtype %s for %s, but got %s", allow_int32 ? "int32 or int64" : "int64",
                 what, lm_dtype_name(index->dtype));
    return NULL;
}

/* Shape and strides with a 0-d tensor seen as 1-d of size 1, as gather/scatter/index_select treat it. */
typedef struct { int nd; int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS]; } lm_nd;

static inline void lm_as_nd(const lm_tensor *t, lm_nd *s) {
    if (t->ndim == 0) { s->nd = 1; s->shape[0] = 1; s->strides[0] = 0; return; }
    s->nd = t->ndim;
    memcpy(s->shape, t->shape, sizeof(int64_t) * t->ndim);
    memcpy(s->strides, t->strides, sizeof(int64_t) * t->ndim);
}

/* The next position in C order. */
static inline void lm_next_pos(int nd, const int64_t *shape, int64_t *pos) {
    for (int k = nd - 1; k >= 0; k--) { if (++pos[k] < shape[k]) return; pos[k] = 0; }
}

static inline int64_t lm_pos_offset(int nd, const int64_t *pos, const int64_t *strides) {
    int64_t off = 0;
    for (int k = 0; k < nd; k++) off += pos[k] * strides[k];
    return off;
}

static inline int lm_index_bound_error(int64_t v, int dim, int64_t size) {
    return lm_set_error(LM_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld",
                        (long long)v, dim, (long long)size);
}
/* gather's and scatter's checks (gather_scatter.c): dim wrapped into *d, src's dtype (src may be
 * NULL), index's dtype and the shapes; index as int64 (a new reference), or NULL with the error set */
lm_tensor *lm_gather_scatter_index(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *src, int *d);
/* index_add's checks (index_select.c): dim wrapped into *d; index as contiguous int64 on its device,
 * every value checked; NULL with the error set */
lm_tensor *lm_index_add_index(lm_tensor *self, int64_t dim, lm_tensor *index, lm_tensor *source, lm_scalar alpha,
                              int *d);

#endif
