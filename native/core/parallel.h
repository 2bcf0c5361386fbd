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
 * threads: at least the parallel threshold, and more than one thread allowed.
 * It decides a kernel's split, which must not depend on the machine's load; the
 * regions below run the split inline while lm_parallel_backing_off(). */
bool lm_should_parallelize(int64_t work);
bool lm_parallel_backing_off(void);

/* fn(begin, end, ctx) over [0, n) in contiguous slices, one per thread, with
 * the GIL released, when lm_should_parallelize(work), n >= 2 and not backing off; otherwise
 * fn(0, n, ctx) inline. Slices never overlap, so fn may write its own. */
typedef void (*lm_range_fn)(int64_t begin, int64_t end, void *ctx);
void lm_parallel_for(int64_t n, int64_t work, lm_range_fn fn, void *ctx);

/* part(t, nt, ctx) for t = 0..nt-1, always nt parts, spread over the threads the region gets
 * (one, inline, while backing off or without OpenMP), with the GIL released meanwhile when
 * release_gil (a caller's threshold: big work on one thread lets Python threads run too). The
 * split is fixed so a result never depends on the machine's load: a product split in two runs
 * OpenBLAS on each half, whose sums differ in the last bit from one call over the whole. For
 * kernels that keep per-part scratch; returns the parts (nt, or 1 when nt < 2). */
typedef void (*lm_part_fn)(int t, int n, void *ctx);
int lm_parallel_parts(int nt, bool release_gil, lm_part_fn part, void *ctx);
/* Whether the calling thread runs one part of a split (lm_parallel_parts or _gang with nt > 1, or a
 * slice of LM_PARALLEL_SLICES' n > 1), whatever the threads the region got: a GEMM there stays on this
 * thread rather than splitting again, so its bits are the same on a busy machine (one thread running
 * every part inline) and an idle one. enter/leave bracket such a part. */
bool lm_parallel_inside(void);
void lm_parallel_enter(void);
void lm_parallel_leave(void);
/* part(t, n, ctx) on a team of n <= nt threads running together (n = 1 while backing off), for
 * parts that meet at barriers (the LSTM's steps); returns n */
int lm_parallel_gang(int nt, bool release_gil, lm_part_fn part, void *ctx);

/* For loops whose bodies stay inline (a callback would need all their locals): runs the statement
 * body with int64_t lo, hi bound to one thread's slice of [0, n) on lm_get_num_threads() threads
 * when par (the caller's lm_should_parallelize) and not backing off, else once over
 * [0, n) inline. The region is timed for the busy-machine backoff as lm_parallel_for's are. The
 * caller handles the GIL. The body is expanded twice (threaded and inline). */
int64_t lm_parallel_now(void);
void lm_parallel_judge(int64_t start, int64_t own, int64_t last);
int lm_parallel_thread(void);    /* omp_get_thread_num(), 0 without OpenMP */
int lm_parallel_team(void);      /* omp_get_num_threads(), 1 without OpenMP */
#define LM_PARALLEL_SLICES(n, par, ...)                                                                   \
    do {                                                                                                  \
        int64_t n_ = (n);                                                                                 \
        int nt_ = (par) && n_ > 1 && !lm_parallel_backing_off() ? lm_get_num_threads() : 1;               \
        if (nt_ > n_) nt_ = (int)n_;                                                                      \
        if (nt_ > 1) {                                                                                    \
            int64_t start_ = lm_parallel_now(), own_ = start_, last_ = start_;                            \
            _Pragma("omp parallel num_threads(nt_)")                                                      \
            {                                                                                             \
                int t_ = lm_parallel_thread(), k_ = lm_parallel_team();                                   \
                int64_t lo = n_ * t_ / k_, hi = n_ * (t_ + 1) / k_;                                       \
                lm_parallel_enter();                                                                      \
                __VA_ARGS__                                                                               \
                lm_parallel_leave();                                                                      \
                int64_t e_ = lm_parallel_now();                                                           \
                _Pragma("omp critical(lm_slices)")                                                        \
                {                                                                                         \
                    if (t_ == 0) own_ = e_;                                                               \
                    if (e_ > last_) last_ = e_;                                                           \
                }                                                                                         \
            }                                                                                             \
            lm_parallel_judge(start_, own_, last_);                                                       \
        } else {                                                                                          \
            int64_t lo = 0, hi = n_;                                                                      \
            if (n_ > 1) lm_parallel_enter();                                                              \
            __VA_ARGS__                                                                                   \
            if (n_ > 1) lm_parallel_leave();                                                              \
        }                                                                                                 \
    } while (0)

#endif
