/* The CPU's copy runner: broadcast and dtype conversion through one cast
 * loop per (destination, source) pair of dtypes.yaml's table; the loop behind
 * copy_, to(), contiguous() and every cast the pointwise machinery needs. */
#include "device.h"

/* one loop per (destination, source) pair of dtypes.yaml's table */
#define CAST_LOOP(DST, DE, SE, SRC, SN)                                                   \
    static void cast_##DE##_##SE(char **d, const int64_t *s, int64_t n, const void *c) {  \
        (void)c;                                                                         \
        if (s[0] == sizeof(DST) && s[1] == sizeof(SRC)) {                                \
            DST *o = (DST *)d[0]; const SRC *x = (const SRC *)d[1];                      \
            for (int64_t i = 0; i < n; i++) o[i] = LM_STORE_##DE(LM_LOAD_##SE(x[i]));    \
        } else {                                                                         \
            for (int64_t i = 0; i < n; i++)                                              \
                *(DST *)(d[0] + i * s[0]) =                                              \
                    LM_STORE_##DE(LM_LOAD_##SE(*(const SRC *)(d[1] + i * s[1])));        \
        }                                                                                \
    }
#define CAST_ROW(DE, DST, DN) LM_FOR_EACH_ANY_DTYPE_WITH(CAST_LOOP, DST, DE)
LM_FOR_EACH_ANY_DTYPE(CAST_ROW)

#define CAST_ENTRY(DST, DE, SE, SRC, SN) cast_##DE##_##SE,
#define CAST_TABLE_ROW(DE, DST, DN) {LM_FOR_EACH_ANY_DTYPE_WITH(CAST_ENTRY, DST, DE)},
static const lm_loop_fn cast_loops[LM_NUM_DTYPES][LM_NUM_DTYPES] = {LM_FOR_EACH_ANY_DTYPE(CAST_TABLE_ROW)};

lm_loop_fn lm_cast_loop(int dst, int src) { return cast_loops[dst][src]; }

int lm_run_cpu_copy(lm_tensor *dst, lm_tensor *src) {
    lm_tensor *ops[2] = {dst, src};
    lm_iter it;
    if (lm_iter_init(&it, 2, ops, dst->ndim, dst->shape)) return -1;
    lm_iter_order_by(&it, 0);
    lm_iter_run_parallel(&it, cast_loops[dst->dtype][src->dtype], NULL, -1);
    return 0;
}
