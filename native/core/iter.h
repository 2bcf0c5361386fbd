/* The shared strided-loop machinery behind every pointwise op, cast, copy
 * and reduction: operands broadcast to one shape, dims coalesced, an inner
 * loop called on the innermost dim, threads split along one dim. */
#ifndef LOOM_ITER_H
#define LOOM_ITER_H
#include "loom.h"
#include "parallel.h"

#define LM_MAX_OPS 4

/* Inner loop: data[k] points at operand k, strides[k] is its step in bytes. */
typedef void (*lm_loop_fn)(char **data, const int64_t *strides, int64_t n, const void *ctx);

typedef struct {
    int nops, ndim;                          /* dim 0 is the innermost */
    int64_t numel;
    int64_t shape[LM_MAX_DIMS];
    int64_t strides[LM_MAX_DIMS][LM_MAX_OPS];   /* bytes */
    char *data[LM_MAX_OPS];
} lm_iter;

/* Operands are viewed at `shape` (normal order, broadcasting size-1 and
 * missing leading dims with stride 0). Fails if a tensor cannot broadcast. */
int lm_iter_init(lm_iter *it, int nops, lm_tensor *const *ts, int ndim, const int64_t *shape);
/* Reorder dims so operand `op` is walked in memory order, then coalesce. */
void lm_iter_order_by(lm_iter *it, int op);
void lm_iter_coalesce(lm_iter *it);
/* Restrict dim `dim` to [begin, end). */
void lm_iter_narrow(lm_iter *it, int dim, int64_t begin, int64_t end);
void lm_iter_run(const lm_iter *it, lm_loop_fn fn, const void *ctx);
/* Run on threads when big enough, splitting `dim` (-1: pick the largest). */
void lm_iter_run_parallel(const lm_iter *it, lm_loop_fn fn, const void *ctx, int dim);
/* The loop converting one dtype into another (dst <- src). */
lm_loop_fn lm_cast_loop(int dst, int src);

#endif
