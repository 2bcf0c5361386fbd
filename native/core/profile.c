/* The op profiler's event log: one event per op call or record_function range
 * (name, start and end on CLOCK_MONOTONIC in ns, the enclosing event on the
 * same thread, the inputs' shapes), in blocks that never move, so a thread
 * finishing an event never races another growing the log. Python reads it
 * back when the profile ends (python/loom/autograd/profiler.py). */
#include "profile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK 4096
#define MAX_BLOCKS 8192
#define SHAPES 160

typedef struct {
    const char *name;
    int64_t t0, t1, parent;
    char shapes[SHAPES];
} prof_event;

static prof_event *blocks[MAX_BLOCKS];
static int64_t n_events;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int64_t open_event = -1;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static prof_event *event_at(int64_t i) { return &blocks[i / BLOCK][i % BLOCK]; }

int64_t lm_profiler_begin(const char *name) {
    pthread_mutex_lock(&lock);
    int64_t i = n_events;
    if (i / BLOCK >= MAX_BLOCKS || (!blocks[i / BLOCK] && !(blocks[i / BLOCK] = malloc(sizeof(prof_event) * BLOCK)))) {
        pthread_mutex_unlock(&lock);
        return -1;   /* the log is full: further events are dropped */
    }
    n_events++;
    pthread_mutex_unlock(&lock);
    prof_event *e = event_at(i);
    e->name = name;
    e->parent = open_event;
    e->shapes[0] = 0;
    e->t1 = -1;
    open_event = i;
    e->t0 = now_ns();
    return i;
}

void lm_profiler_end(int64_t i) {
    int64_t t = now_ns();
    if (i < 0) return;
    prof_event *e = event_at(i);
    e->t1 = t;
    open_event = e->parent;
}

static void shapes(int64_t i, int n, const lm_tensor *const *ts) {
    if (i < 0) return;
    char *out = event_at(i)->shapes;
    size_t at = 0;
    at += (size_t)snprintf(out + at, SHAPES - at, "[");
    for (int k = 0; k < n && at < SHAPES; k++) {
        const lm_tensor *t = ts[k];
        at += (size_t)snprintf(out + at, SHAPES - at, "%s[", k ? ", " : "");
        for (int d = 0; t && d < t->ndim && at < SHAPES; d++)
            at += (size_t)snprintf(out + at, SHAPES - at, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
        if (at < SHAPES) at += (size_t)snprintf(out + at, SHAPES - at, "]");
    }
    if (at < SHAPES) snprintf(out + at, SHAPES - at, "]");
}

static lm_prof_state state = {0, 0, lm_profiler_begin, lm_profiler_end, shapes};

uintptr_t lm_profiler_state(void) { return (uintptr_t)&state; }

void lm_profiler_start(int record_shapes) {
    pthread_mutex_lock(&lock);
    n_events = 0;
    pthread_mutex_unlock(&lock);
    open_event = -1;
    state.record_shapes = record_shapes;
    state.on = 1;
}

void lm_profiler_stop(void) { state.on = 0; }

int64_t lm_profiler_count(void) { return n_events; }

/* event i: its name, times, enclosing event (-1 at the top) and shapes text ("" without record_shapes) */
const char *lm_profiler_event(int64_t i, int64_t *times_parent, const char **shapes_text) {
    if (i < 0 || i >= n_events) return NULL;
    prof_event *e = event_at(i);
    times_parent[0] = e->t0;
    times_parent[1] = e->t1;
    times_parent[2] = e->parent;
    *shapes_text = e->shapes;
    return e->name;
}

/* the blocks go back to the heap once a profile has been read */
void lm_profiler_clear(void) {
    pthread_mutex_lock(&lock);
    n_events = 0;
    for (int b = 0; b < MAX_BLOCKS && blocks[b]; b++) { free(blocks[b]); blocks[b] = NULL; }
    pthread_mutex_unlock(&lock);
}
