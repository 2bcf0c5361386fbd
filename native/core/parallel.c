/* Threads and the GIL for every kernel that splits its work (parallel.h). */
#include "loom.h"
#include "parallel.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static int64_t par_threshold = 1 << 18;
static int num_threads = 0;

int lm_get_num_threads(void) {
#ifdef _OPENMP
    return num_threads > 0 ? num_threads : omp_get_max_threads();
#else
    return 1;
#endif
}
void lm_set_num_threads(int n) { num_threads = n < 1 ? 1 : n; }
void lm_set_parallel_threshold(int64_t n) { par_threshold = n < 1 ? 1 : n; }
int64_t lm_get_parallel_threshold(void) { return par_threshold; }
bool lm_should_parallelize(int64_t work) { return work >= par_threshold && lm_get_num_threads() > 1; }

void lm_parallel_for(int64_t n, int64_t work, lm_range_fn fn, void *ctx) {
#ifdef _OPENMP
    if (n >= 2 && lm_should_parallelize(work)) {
        int nt = lm_get_num_threads();
        if (nt > n) nt = (int)n;
        void *gil = lm_gil_release();
        #pragma omp parallel num_threads(nt)
        {
            int t = omp_get_thread_num(), k = omp_get_num_threads();
            int64_t b = n * t / k, e = n * (t + 1) / k;
            if (e > b) fn(b, e, ctx);
        }
        lm_gil_reacquire(gil);
        return;
    }
#else
    (void)work;
#endif
    fn(0, n, ctx);
}

int lm_parallel_parts(int nt, bool release_gil, lm_part_fn part, void *ctx) {
    void *gil = release_gil ? lm_gil_release() : NULL;
    int used = 1;
#ifdef _OPENMP
    if (nt > 1) {
        #pragma omp parallel num_threads(nt)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
            if (t == 0) used = n;
            part(t, n, ctx);
        }
    } else
#endif
    {
        (void)nt;
        part(0, 1, ctx);
    }
    lm_gil_reacquire(gil);
    return used;
}
