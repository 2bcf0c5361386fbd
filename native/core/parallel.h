/* The one place that owns threads (OpenMP) and lets the GIL go around them.
 *
 * An OpenMP region costs ~1.5 us even when its `if` clause is false, and
 * releasing the GIL costs more than a small op, so the decision to go parallel
 * is a plain branch in C taken before any region: below it, the work runs
 * inline on the calling thread, touching neither OpenMP nor the GIL. */
#ifndef LOOM_PARALLEL_H
#define LOOM_PARALLEL_H
#include <stdbool.h>
#include <stdint.h>

/* Is `work` (a cost estimate, about the elements touched) big enough for
 * threads: at least the parallel threshold, and more than one thread allowed. */
bool lm_should_parallelize(int64_t work);

/* fn(begin, end, ctx) over [0, n) in contiguous slices, one per thread, with
 * the GIL released, when lm_should_parallelize(work) and n >= 2; otherwise
 * fn(0, n, ctx) inline. Slices never overlap, so fn may write its own. */
typedef void (*lm_range_fn)(int64_t begin, int64_t end, void *ctx);
void lm_parallel_for(int64_t n, int64_t work, lm_range_fn fn, void *ctx);

/* part(t, n, ctx) for t = 0..n-1 on up to nt threads (n = 1, inline, when
 * nt < 2 or without OpenMP), with the GIL released meanwhile when release_gil
 * (a caller's threshold: big work on one thread lets Python threads run too).
 * For kernels that keep per-thread scratch; returns n, the parts that ran. */
typedef void (*lm_part_fn)(int t, int n, void *ctx);
int lm_parallel_parts(int nt, bool release_gil, lm_part_fn part, void *ctx);

#endif
