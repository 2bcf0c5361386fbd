/* Type promotion with PyTorch's rules: dimensioned tensors, then 0-d tensors,
 * then wrapped Python numbers, each level only raising the *category*
 * (bool < integral < floating < complex) of the level above it. The pairwise
 * lattice is lm_promote_table, generated from dtypes.yaml. */
#include "loom.h"

static int default_float = LM_FLOAT32;

int lm_get_default_dtype(void) { return default_float; }

int lm_set_default_dtype(int dtype) {
    if (!lm_is_floating(dtype))
        return lm_set_error(LM_ERR_TYPE, "only floating-point types are supported as the default type");
    default_float = dtype;
    return 0;
}

#define REFUSED (-2)   /* a pair the lattice refuses (lm_promote_table's -1): the error is set */

/* a or b may be -1 (no operand at that level yet) or REFUSED, which sticks */
static int promote(int a, int b) {
    if (a == REFUSED || b == REFUSED) return REFUSED;
    if (a < 0 || b < 0) return a < 0 ? b : a;
    int r = lm_promote_table[a][b];
    if (r >= 0) return r;
    lm_set_error(LM_ERR_RUNTIME, LM_PROMOTION_REFUSED, lm_dtype_torch_names[a], lm_dtype_torch_names[b]);
    return REFUSED;
}

/* c10's combine_categories: `lower` (a lower-priority level) decides only when it
 * raises the category, and then a floating `higher` keeps its width as complex. */
static int combine_categories(int higher, int lower) {
    if (higher == REFUSED || lower == REFUSED) return REFUSED;
    if (higher < 0) return lower;
    if (lower < 0) return higher;
    if (lm_is_complex(higher)) return higher;
    if (lm_is_complex(lower)) return lm_is_floating(higher) ? lm_dtype_to_complex[higher] : lower;
    if (lm_is_floating(higher)) return higher;
    if (higher == LM_BOOL || lm_is_floating(lower)) return promote(higher, lower);
    return higher;
}

int lm_result_type(lm_tensor **ts, int n) {
    int dim = -1, zero = -1, wrapped = -1;
    for (int i = 0; i < n; i++) {
        const lm_tensor *t = ts[i];
        if (!t) continue;
        if (t->flags & LM_FLAG_WRAPPED_NUMBER) {
            int dt = lm_is_floating(t->dtype) ? default_float
                   : lm_is_complex(t->dtype) ? lm_dtype_to_complex[default_float] : t->dtype;
            wrapped = promote(wrapped, dt);
        } else if (t->ndim == 0) {
            zero = promote(zero, t->dtype);
        } else {
            dim = promote(dim, t->dtype);
        }
    }
    int r = combine_categories(dim, combine_categories(zero, wrapped));
    return r == REFUSED ? -1 : r < 0 ? default_float : r;
}

/* PyTorch's canCast: no cast to a lower category (float -> int, int -> bool) */
bool lm_can_cast(int from, int to) {
    return lm_dtype_category(from) <= lm_dtype_category(to);
}

/* ---- float16/bfloat16 through kernels that compute in float32 ---- */

void lm_low_note(int *low, const lm_tensor *t) {
    if (!t || !lm_is_floating(t->dtype) || *low == -2) return;
    int d = lm_dtype_work[t->dtype] != t->dtype ? t->dtype : -2;   /* a plain float outranks them */
    *low = *low == -1 || *low == d ? d : -2;
}

int lm_low_result(int low, int dtype_arg) {
    if (dtype_arg >= 0) return lm_dtype_valid(dtype_arg) && lm_dtype_work[dtype_arg] != dtype_arg ? dtype_arg : -1;
    return low >= 0 ? low : -1;
}

lm_tensor *lm_upcast(lm_tensor *t) {
    if (!t) return NULL;
    if (lm_dtype_work[t->dtype] == t->dtype) { lm_retain(t); return t; }
    return lm_cast(t, lm_dtype_work[t->dtype]);
}

lm_tensor *lm_round_back(lm_tensor *r, int low) {
    if (!r || low < 0 || r->dtype != lm_dtype_work[low]) return r;
    lm_tensor *c = lm_cast(r, low);
    lm_release(r);
    return c;
}
