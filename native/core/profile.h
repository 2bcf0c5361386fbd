/* The op profiler's shared state (autograd.profiler.profile): loom._C owns
 * it; each loom._C_opsN gets its address once (lm_ffi_profiler) and every op
 * entry tests `on` before anything else, so an inactive profiler costs one
 * load and branch per op call. */
#ifndef LOOM_PROFILE_H
#define LOOM_PROFILE_H

#include "loom.h"

typedef struct lm_prof_state {
    volatile int on;
    volatile int record_shapes;
    int64_t (*begin)(const char *name);
    void (*end)(int64_t event);
    /* the inputs' shapes for record_shapes: n arguments, NULL where one is no Tensor */
    void (*shapes)(int64_t event, int n, const lm_tensor *const *tensors);
} lm_prof_state;

#endif
