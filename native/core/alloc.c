/* Host memory for tensors (the CPU allocator), and the per-device table.
 *
 * Large out-of-place ops lose most of their time to first-touch page faults
 * (about 2 us per 4 KiB page in these VMs), so freed large blocks are kept in
 * a small cache and reused, and large fresh blocks ask for transparent huge
 * pages. Medium blocks (64 KiB to 1 MiB: glibc would mmap and unmap each one,
 * faulting every page again, e.g. a max_pool2d output at batch 64 spent most
 * of its 0.8 ms there) are kept per power-of-two class. Small blocks go
 * straight to malloc. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "alloc.h"

#define BIG (1 << 20)                    /* cache and huge-page blocks from 1 MiB up */
#define HUGE_PAGE ((size_t)2 << 20)
#define SLOTS 32

static struct { void *p; size_t n; } cache[SLOTS];
static int ncached;
static size_t cached_bytes, cache_limit = (size_t)1 << 30;
static size_t live_huge;   /* bytes of the blocks of 1 GiB and more that loom holds (mu guards it) */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static size_t round_big(size_t n) { return (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1); }

#define MEDIUM (1 << 16)                 /* 64 KiB: classes 64K, 128K, 256K, 512K, 1M */
#define CLASSES 5
#define PER_CLASS 16
static void *medium[CLASSES][PER_CLASS];
static int nmedium[CLASSES];

static int medium_class(size_t n) {
    int c = 0;
    while (((size_t)MEDIUM << c) < n) c++;
    return c;
}

/* The machine's memory: a block larger than all of it is refused at once. Where the kernel
 * overcommits (some VMs), malloc would grant it and the first writes would get the process
 * killed instead of raising MemoryError. */
static size_t host_bytes(void) {
    static size_t total;
    if (!total) {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        total = pages > 0 && size > 0 ? (size_t)pages * (size_t)size : SIZE_MAX;
    }
    return total;
}

/* What the kernel says it could still give (MemAvailable), for blocks of 1 GiB and more: on an
 * overcommitting kernel malloc grants those, and touching them gets the process killed; refusing
 * instead makes them a MemoryError. Read per such block (a few us next to filling 1 GiB). */
#define HUGE_BLOCK ((size_t)1 << 30)
static size_t available_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return SIZE_MAX;
    char line[128];
    size_t kib = 0;
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %zu kB", &kib) == 1) { found = 1; break; }
    fclose(f);
    return found ? kib * 1024 : SIZE_MAX;
}

void *lm_alloc(size_t nbytes) {
    if (nbytes >= MEDIUM && nbytes < BIG) {
        int c = medium_class(nbytes);
        void *p = NULL;
        pthread_mutex_lock(&mu);
        if (nmedium[c]) p = medium[c][--nmedium[c]];
        pthread_mutex_unlock(&mu);
        return p ? p : malloc((size_t)MEDIUM << c);
    }
    if (nbytes < BIG) return malloc(nbytes ? nbytes : 1);
    if (nbytes > host_bytes()) return NULL;
    size_t n = round_big(nbytes);
    pthread_mutex_lock(&mu);
    for (int i = 0; i < ncached; i++) {
        if (cache[i].n == n) {
            void *p = cache[i].p;
            cache[i] = cache[--ncached];
            cached_bytes -= n;
            if (n >= HUGE_BLOCK) live_huge += n;
            pthread_mutex_unlock(&mu);
            return p;
        }
    }
    /* untouched blocks do not lower MemAvailable: also keep loom's own live blocks within the
       machine, so two 16 GB results on a 24 GB machine fail at the second instead of at its writes */
    if (n >= HUGE_BLOCK && (n > available_bytes() || live_huge + n > host_bytes())) {
        pthread_mutex_unlock(&mu);
        return NULL;
    }
    if (n >= HUGE_BLOCK) live_huge += n;
    pthread_mutex_unlock(&mu);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, n) != 0) {
        if (n >= HUGE_BLOCK) { pthread_mutex_lock(&mu); live_huge -= n; pthread_mutex_unlock(&mu); }
        return NULL;
    }
    madvise(p, n, MADV_HUGEPAGE);
    return p;
}

void lm_free(void *p, size_t nbytes) {
    if (!p) return;
    if (nbytes >= MEDIUM && nbytes < BIG) {
        int c = medium_class(nbytes);
        pthread_mutex_lock(&mu);
        if (nmedium[c] < PER_CLASS) { medium[c][nmedium[c]++] = p; p = NULL; }
        pthread_mutex_unlock(&mu);
        free(p);
        return;
    }
    if (nbytes < BIG) { free(p); return; }
    size_t n = round_big(nbytes);
    pthread_mutex_lock(&mu);
    if (n >= HUGE_BLOCK) live_huge -= n;
    if (ncached < SLOTS && cached_bytes + n <= cache_limit) {
        cache[ncached].p = p;
        cache[ncached++].n = n;
        cached_bytes += n;
        p = NULL;
    }
    pthread_mutex_unlock(&mu);
    free(p);
}

void lm_allocator_trim(void) {
    pthread_mutex_lock(&mu);
    for (int i = 0; i < ncached; i++) free(cache[i].p);
    ncached = 0;
    cached_bytes = 0;
    for (int c = 0; c < CLASSES; c++) {
        for (int i = 0; i < nmedium[c]; i++) free(medium[c][i]);
        nmedium[c] = 0;
    }
    pthread_mutex_unlock(&mu);
}

int64_t lm_allocator_cached_bytes(void) { return (int64_t)cached_bytes; }

/* ---- one allocator per device -------------------------------------------- */

static void cpu_zero(void *p, size_t nbytes) { memset(p, 0, nbytes); }
static void cpu_copy(void *dst, const void *src, size_t nbytes) { memcpy(dst, src, nbytes); }

static const lm_allocator cpu_allocator = {"cpu", lm_alloc, lm_free, cpu_zero, cpu_copy};


static const lm_allocator *allocators[LM_NUM_DEVICES] = {[LM_CPU] = &cpu_allocator};

void lm_register_allocator(int device, const lm_allocator *a) {
    if (device >= 0 && device < LM_NUM_DEVICES) allocators[device] = a;
}

const lm_allocator *lm_allocator_for(int device) {
    if (device >= 0 && device < LM_NUM_DEVICES && allocators[device]) return allocators[device];
    if (device == LM_CUDA)   /* as PyTorch's "Torch not compiled with CUDA enabled" */
        lm_set_error(LM_ERR_RUNTIME, "device cuda is not available: loom was not compiled with CUDA enabled");
    else
        lm_set_error(LM_ERR_RUNTIME, "unknown device code %d", device);
    return NULL;
}
