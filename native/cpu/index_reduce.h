/* argmax/argmin and max.dim/min.dim (index_reduce.c): the checks and result shapes shared by the
 * host's loop and the CUDA kernel's (native/cuda/host_reduce.c), which `run` fills in. */
#ifndef LOOM_INDEX_REDUCE_H
#define LOOM_INDEX_REDUCE_H
#include "loom.h"

/* outer lines of R elements (stride rs) each, at the offsets (in elements) of the on outer dims */
typedef struct {
    int on;
    int64_t outer, R, rs;
    int64_t oshape[LM_MAX_DIMS], ostr[LM_MAX_DIMS];
} lm_argreduce_geom;

/* idx (int64, contiguous, G->outer values) <- each line's first maximum (or minimum; NaN wins), vals
 * (NULL, or contiguous of x's dtype) <- its value; 0 or -1 with the error set */
typedef int (*lm_argreduce_run)(lm_tensor *x, const lm_argreduce_geom *G, bool is_max, lm_tensor *vals,
                                lm_tensor *idx);

/* dim INT64_MIN: the flattened tensor; *values NULL when values is */
int lm_argreduce(lm_tensor *self, int64_t dim, bool keepdim, bool is_max, lm_tensor **values, lm_tensor **indices,
                 lm_argreduce_run run);

#endif
