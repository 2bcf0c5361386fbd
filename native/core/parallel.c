/* Threads and the GIL for every kernel that splits its work (parallel.h). */
#include <stdlib.h>
#include <time.h>
#include "loom.h"
#include "parallel.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* A busy machine: when another process holds a core, a region's worker threads start (or finish)
 * late, and the calling thread waits for them at the region's end: two threads become slower than
 * one (the digits CNN step ran 2-4x slower). So each region notes how long the calling thread
 * waited for the others after its own share; a wait longer than that share and than LATE_NS
 * (longer than waking a sleeping thread takes on a VM) runs the next regions inline, for a
 * backoff that doubles with each late region (2 ms up to 0.5 s) and halves after 16 on time in a
 * row (a competitor leaves some probes on time). Probing costs one slow region per backoff. */
#define LATE_NS 300000
#define BACKOFF_MIN_NS 2000000
#define BACKOFF_MAX_NS 500000000
static int64_t late_ns = LATE_NS;             /* LOOM_LATE_US overrides (tests: 0 makes every region late) */
static int64_t backoff_ns = BACKOFF_MIN_NS;
static volatile int64_t inline_until = 0;     /* monotonic ns: regions before it run inline */
static int64_t late_regions = 0, regions = 0; /* racy counters (statistics only) */
static int on_time = 0;                       /* regions on time since the last late one */

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool backing_off(void) { return inline_until && now_ns() < inline_until; }

/* start: the region's start; own: the calling thread's finish; last: the last thread's finish */
static void judge(int64_t start, int64_t own, int64_t last) {
    static bool read_env = false;
    if (!read_env) {
        const char *v = getenv("LOOM_LATE_US");
        if (v && *v) late_ns = (int64_t)atoll(v) * 1000;
        read_env = true;
    }
    regions++;
    int64_t wait = last - own;
    if (wait > late_ns && wait >= own - start) {
        late_regions++;
        inline_until = last + backoff_ns;
        backoff_ns = backoff_ns * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : backoff_ns * 2;
        on_time = 0;
    } else if (++on_time >= 16 && backoff_ns > BACKOFF_MIN_NS) {   /* a free machine proves itself slowly */
        backoff_ns /= 2;
        on_time = 0;
    }
}

int64_t lm_parallel_now(void) { return now_ns(); }
void lm_parallel_judge(int64_t start, int64_t own, int64_t last) { judge(start, own, last); }
#ifdef _OPENMP
int lm_parallel_thread(void) { return omp_get_thread_num(); }
int lm_parallel_team(void) { return omp_get_num_threads(); }
#else
int lm_parallel_thread(void) { return 0; }
int lm_parallel_team(void) { return 1; }
#endif

void lm_parallel_stats(int64_t *out) {
    out[0] = regions;
    out[1] = late_regions;
    out[2] = backing_off() ? inline_until - now_ns() : 0;
}

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
/* The split is decided from the work and the thread count alone, never from the backoff: a busy
 * machine runs the same parts inline, so the results keep their bits (the regions check the backoff) */
bool lm_should_parallelize(int64_t work) {
    return work >= par_threshold && lm_get_num_threads() > 1;
}
bool lm_parallel_backing_off(void) { return backing_off(); }

void lm_parallel_for(int64_t n, int64_t work, lm_range_fn fn, void *ctx) {
#ifdef _OPENMP
    if (n >= 2 && lm_should_parallelize(work) && !backing_off()) {
        int nt = lm_get_num_threads();
        if (nt > n) nt = (int)n;
        int64_t *ends = malloc(sizeof(int64_t) * (size_t)nt), start = now_ns();
        if (ends) {
            void *gil = lm_gil_release();
            #pragma omp parallel num_threads(nt)
            {
                int t = omp_get_thread_num(), k = omp_get_num_threads();
                int64_t b = n * t / k, e = n * (t + 1) / k;
                if (e > b) fn(b, e, ctx);
                ends[t] = now_ns();
                if (t == 0) for (int i = k; i < nt; i++) ends[i] = ends[0];   /* threads OpenMP did not give */
            }
            lm_gil_reacquire(gil);
            int64_t last = ends[0];
            for (int i = 1; i < nt; i++) last = ends[i] > last ? ends[i] : last;
            judge(start, ends[0], last);
            free(ends);
            return;
        }
    }
#else
    (void)work;
#endif
    fn(0, n, ctx);
}

static _Thread_local int inside;   /* parts this thread is running, nested */
bool lm_parallel_inside(void) { return inside > 0; }
void lm_parallel_enter(void) { inside++; }
void lm_parallel_leave(void) { inside--; }

/* gang: parts t of the team's n (n = 1 while backing off), else the fixed nt parts over the team */
static int parts(int nt, bool release_gil, lm_part_fn part, void *ctx, bool gang) {
    if (nt < 1) nt = 1;
    void *gil = release_gil ? lm_gil_release() : NULL;
    int used = gang ? 1 : nt;
#ifdef _OPENMP
    int64_t *ends = nt > 1 && !backing_off() ? malloc(sizeof(int64_t) * (size_t)nt) : NULL;
    if (ends) {
        int64_t start = now_ns();
        int team = 1;
        #pragma omp parallel num_threads(nt)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
            if (t == 0) team = n;
            inside++;
            if (gang) part(t, n, ctx);
            else for (int p = t; p < nt; p += n) part(p, nt, ctx);
            inside--;
            ends[t] = now_ns();
        }
        if (gang) used = team;
        int64_t last = ends[0];
        for (int i = 1; i < team; i++) last = ends[i] > last ? ends[i] : last;
        judge(start, ends[0], last);
        free(ends);
    } else
#endif
    {
        inside += nt > 1;
        if (gang) part(0, 1, ctx);
        else for (int p = 0; p < nt; p++) part(p, nt, ctx);
        inside -= nt > 1;
    }
    lm_gil_reacquire(gil);
    return used;
}

int lm_parallel_parts(int nt, bool release_gil, lm_part_fn part, void *ctx) {
    return parts(nt, release_gil, part, ctx, false);
}

int lm_parallel_gang(int nt, bool release_gil, lm_part_fn part, void *ctx) {
    return parts(nt, release_gil, part, ctx, true);
}
