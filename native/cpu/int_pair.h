/* The int[2] arguments of the 2-D conv and pooling kernels, read as PyTorch does. */
#ifndef LOOM_INT_PAIR_H
#define LOOM_INT_PAIR_H

#include "loom.h"

/* one value means both; empty means the fallback (when given); each at least min */
static inline int lm_int_pair(const char *name, const int64_t *v, int64_t n, const int64_t *fallback,
                              int64_t out[2], int64_t min) {
    if (n == 0 && fallback) { out[0] = fallback[0]; out[1] = fallback[1]; }
    else if (n == 1) out[0] = out[1] = v[0];
    else if (n == 2) { out[0] = v[0]; out[1] = v[1]; }
    else return lm_set_error(LM_ERR_VALUE, "%s must be an int or a pair of ints, got %lld values", name, (long long)n);
    if (out[0] < min || out[1] < min)
        return lm_set_error(LM_ERR_VALUE, "%s must be %s, got (%lld, %lld)", name, min ? "positive" : "non-negative",
                            (long long)out[0], (long long)out[1]);
    return 0;
}

#endif
