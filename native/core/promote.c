/* Type promotion with PyTorch's rules: dimensioned tensors, then 0-d tensors,
 * then wrapped Python numbers, each level only raising the *category*
 * (bool < integral < floating) of the level above it. */
#include "loom.h"

static int default_float = LM_FLOAT32;

/* loom's dtypes are totally ordered by promotion, so promoting is max(). */
static int promote(int a, int b) { return a > b ? a : b; }

static int combine_categories(int higher, int lower) {
    if (higher >= 0 && lm_is_floating(higher)) return higher;
    if (higher == LM_BOOL || (lower >= 0 && lm_is_floating(lower))) return promote(higher, lower);
    return higher >= 0 ? higher : lower;
}

int lm_result_type(lm_tensor **ts, int n) {
    int dim = -1, zero = -1, wrapped = -1;
    for (int i = 0; i < n; i++) {
        const lm_tensor *t = ts[i];
        if (!t) continue;
        if (t->flags & LM_FLAG_WRAPPED_NUMBER) {
            int dt = lm_is_floating(t->dtype) ? default_float : t->dtype;
            wrapped = promote(wrapped, dt);
        } else if (t->ndim == 0) {
            zero = promote(zero, t->dtype);
        } else {
            dim = promote(dim, t->dtype);
        }
    }
    int r = combine_categories(dim, combine_categories(zero, wrapped));
    return r < 0 ? default_float : r;
}

bool lm_can_cast(int from, int to) {
    if (lm_is_floating(from) && !lm_is_floating(to)) return false;
    if (from != LM_BOOL && to == LM_BOOL) return false;
    return true;
}
