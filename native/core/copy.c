/* Copy with broadcast and dtype conversion: the one loop behind copy_, to(),
 * contiguous() and every cast the pointwise machinery needs. */
#include "iter.h"

/* one loop per (destination, source) pair of dtypes.yaml's table */
#define CAST_LOOP(DST, DN, SE, SRC, SN)                                                   \
    static void cast_##DN##_##SN(char **d, const int64_t *s, int64_t n, const void *c) {  \
        (void)c;                                                                         \
        if (s[0] == sizeof(DST) && s[1] == sizeof(SRC)) {                                \
            DST *o = (DST *)d[0]; const SRC *x = (const SRC *)d[1];                      \
            for (int64_t i = 0; i < n; i++) o[i] = (DST)x[i];                            \
        } else {                                                                         \
            for (int64_t i = 0; i < n; i++)                                              \
                *(DST *)(d[0] + i * s[0]) = (DST) * (const SRC *)(d[1] + i * s[1]);      \
        }                                                                                \
    }
#define CAST_ROW(DE, DST, DN) LM_FOR_EACH_DTYPE_WITH(CAST_LOOP, DST, DN)
LM_FOR_EACH_DTYPE(CAST_ROW)

#define CAST_ENTRY(DST, DN, SE, SRC, SN) cast_##DN##_##SN,
#define CAST_TABLE_ROW(DE, DST, DN) {LM_FOR_EACH_DTYPE_WITH(CAST_ENTRY, DST, DN)},
static const lm_loop_fn cast_loops[LM_NUM_DTYPES][LM_NUM_DTYPES] = {LM_FOR_EACH_DTYPE(CAST_TABLE_ROW)};

lm_loop_fn lm_cast_loop(int dst, int src) { return cast_loops[dst][src]; }

int lm_copy_into(lm_tensor *dst, lm_tensor *src) {
    if (dst->device != src->device)
        return lm_set_error(LM_ERR_RUNTIME, "cannot copy between devices %d and %d", src->device, dst->device);
    lm_tensor *ops[2] = {dst, src};
    lm_iter it;
    if (lm_iter_init(&it, 2, ops, dst->ndim, dst->shape)) return -1;
    lm_iter_order_by(&it, 0);
    lm_iter_run_parallel(&it, cast_loops[dst->dtype][src->dtype], NULL, -1);
    lm_bump_version(dst);
    return 0;
}

lm_tensor *lm_cast(lm_tensor *t, int dtype) {
    if (t->dtype == dtype) { lm_retain(t); return t; }
    lm_tensor *out = lm_empty_like(t, dtype);
    if (out && lm_copy_into(out, t)) { lm_release(out); return NULL; }
    if (out) out->flags = t->flags;
    return out;
}

lm_tensor *lm_contiguous(lm_tensor *t) {
    if (lm_is_contiguous(t)) { lm_retain(t); return t; }
    lm_tensor *out = lm_empty_like(t, -1);
    if (out && lm_copy_into(out, t)) { lm_release(out); return NULL; }
    return out;
}
