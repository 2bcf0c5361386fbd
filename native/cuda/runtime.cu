/* The CUDA library's runtime: the caching allocator, copies and casts,
 * cuBLAS (opened at first use), and the one table _C reads
 * (lm_cuda_backend_get). All work is issued on the default stream, so a block
 * freed into the cache may be handed out again at once: any later use of it is
 * ordered after the kernels that used it before. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <map>
#include <mutex>
#include <vector>
#include "pointwise.cuh"
#include "reduce.cuh"
#include "blas.h"

extern "C" {
extern const lm_cuda_pw_entry *const lm_cuda_pw_shards[];
extern const lm_cuda_red_entry *const lm_cuda_red_shards[];
extern const int lm_cuda_nshards;
void *lm_cuda_named_kernel(const char *name);
}

namespace lm {

/* ---- the caching allocator ------------------------------------------------
 * Sizes round up to 512 B below 1 MiB and to 2 MiB above; freed blocks wait in
 * a bin per rounded size and are reused without cudaFree. On cudaMalloc
 * failure the cache is released and the allocation tried once more. */
static std::mutex mu;
static std::map<size_t, std::vector<void *>> bins;
static int64_t allocated, peak, reserved;

static size_t round_size(size_t n) {
    if (n < ((size_t)1 << 20)) return (n + 511) & ~(size_t)511;
    return (n + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
}

static void release_cache_locked() {
    for (auto &b : bins) {
        for (void *p : b.second) { cudaFree(p); reserved -= (int64_t)b.first; }
        b.second.clear();
    }
    bins.clear();
}

static void *cached_malloc(size_t nbytes) {
    size_t n = round_size(nbytes ? nbytes : 1);
    std::lock_guard<std::mutex> g(mu);
    void *p = nullptr;
    auto it = bins.find(n);
    if (it != bins.end() && !it->second.empty()) {
        p = it->second.back();
        it->second.pop_back();
    } else {
        if (cudaMalloc(&p, n) != cudaSuccess) {
            cudaGetLastError();   /* clear the sticky-free error so later calls do not report it */
            release_cache_locked();
            if (cudaMalloc(&p, n) != cudaSuccess) { cudaGetLastError(); return nullptr; }
        }
        reserved += (int64_t)n;
    }
    allocated += (int64_t)n;
    if (allocated > peak) peak = allocated;
    return p;
}

static void cached_free(void *p, size_t nbytes) {
    if (!p) return;
    size_t n = round_size(nbytes ? nbytes : 1);
    std::lock_guard<std::mutex> g(mu);
    allocated -= (int64_t)n;
    bins[n].push_back(p);
}

void *scratch_alloc(size_t nbytes) { return cached_malloc(nbytes); }
void scratch_free(void *p, size_t nbytes) { cached_free(p, nbytes); }

int sm_count() {
    static int n = 0;
    if (!n) {
        int dev = 0;
        cudaGetDevice(&dev);
        if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n < 1) n = 80;
    }
    return n;
}

/* ---- casts: the pointwise machinery with one input ---------------------- */
/* one functor per (destination, source) pair, converting through the source's compute type */
#define LM_CAST_FN(D, DE, SE, S, SN)                                                                  \
    struct cast_##DE##_##SE {                                                                        \
        __device__ D operator()(S x) const { return LM_STORE_##DE(LM_LOAD_##SE(x)); }                \
    };                                                                                               \
    static int cast_##DE##_##SE##_launch(const lm_cuda_pw_args *a) {                                 \
        return launch_pointwise<D, S, 1>(a, cast_##DE##_##SE{});                                     \
    }
#define LM_CAST_FNS(E, D, DN) LM_FOR_EACH_ANY_DTYPE_WITH(LM_CAST_FN, D, E)
LM_FOR_EACH_ANY_DTYPE(LM_CAST_FNS)

#define LM_CAST_CELL(D, DE, SE, S, SN) cast_##DE##_##SE##_launch,
#define LM_CAST_ROW(E, D, DN) { LM_FOR_EACH_ANY_DTYPE_WITH(LM_CAST_CELL, D, E) },
static const lm_cuda_pw_fn cast_table[LM_NUM_DTYPES][LM_NUM_DTYPES] = { LM_FOR_EACH_ANY_DTYPE(LM_CAST_ROW) };

}  // namespace lm

using namespace lm;

extern "C" {

static const char *error_string(int err) {
    if (err >= LM_BLAS_ERROR_BASE) return lm_blas_error_string(err);
    return cudaGetErrorString((cudaError_t)err);
}

static int device_count(int *n) {
    int c = 0;
    cudaError_t e = cudaGetDeviceCount(&c);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        cudaGetLastError();
        *n = 0;
        return 0;
    }
    *n = e == cudaSuccess ? c : 0;
    return (int)e;
}

static int synchronize(void) { return (int)cudaDeviceSynchronize(); }

static int memset0(void *p, size_t n) { return n ? (int)cudaMemsetAsync(p, 0, n) : 0; }

static int copy_bytes(void *dst, const void *src, size_t n, int kind) {
    if (!n) return 0;
    cudaMemcpyKind k = kind == LM_CUDA_H2D ? cudaMemcpyHostToDevice
                     : kind == LM_CUDA_D2H ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
    return (int)(kind == LM_CUDA_D2D ? cudaMemcpyAsync(dst, src, n, k) : cudaMemcpy(dst, src, n, k));
}

static void memory_stats(int64_t *a, int64_t *p, int64_t *r) {
    std::lock_guard<std::mutex> g(mu);
    *a = allocated;
    *p = peak;
    *r = reserved;
}

static void reset_peak(void) {
    std::lock_guard<std::mutex> g(mu);
    peak = allocated;
}

static int empty_cache(void) {
    cudaError_t e = cudaDeviceSynchronize();
    std::lock_guard<std::mutex> g(mu);
    release_cache_locked();
    return (int)e;
}

static int copy_cast(const lm_cuda_pw_args *a, int dst, int src) {
    if (dst < 0 || dst >= LM_NUM_DTYPES || src < 0 || src >= LM_NUM_DTYPES) return (int)cudaErrorInvalidValue;
    return cast_table[dst][src](a);
}

static int device_name(char *buf, size_t cap) {
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, 0);
    if (e == cudaSuccess) snprintf(buf, cap, "%s", p.name);
    return (int)e;
}

static int mem_info(int64_t *free_bytes, int64_t *total_bytes) {
    size_t f = 0, t = 0;
    cudaError_t e = cudaMemGetInfo(&f, &t);
    *free_bytes = (int64_t)f;
    *total_bytes = (int64_t)t;
    return (int)e;
}

static int event_create(void **ev) { return (int)cudaEventCreate((cudaEvent_t *)ev); }
static void event_destroy(void *ev) { if (ev) cudaEventDestroy((cudaEvent_t)ev); }
static int event_record(void *ev) { return (int)cudaEventRecord((cudaEvent_t)ev, 0); }
static int event_synchronize(void *ev) { return (int)cudaEventSynchronize((cudaEvent_t)ev); }
static int event_query(void *ev) {
    cudaError_t e = cudaEventQuery((cudaEvent_t)ev);
    if (e == cudaErrorNotReady) { cudaGetLastError(); return 0; }
    return e == cudaSuccess ? 1 : -(int)e;
}
static int event_elapsed(void *a, void *b, float *ms) { return (int)cudaEventElapsedTime(ms, (cudaEvent_t)a, (cudaEvent_t)b); }

static void *host_alloc(size_t n) {
    void *p = nullptr;
    if (cudaHostAlloc(&p, n ? n : 1, cudaHostAllocDefault) != cudaSuccess) { cudaGetLastError(); return nullptr; }
    return p;
}
static void host_free(void *p) { if (p) cudaFreeHost(p); }

static const lm_cuda_backend backend = {
    LM_CUDA_ABI_VERSION, LM_NUM_DTYPES, LM_MAX_DIMS,
    error_string, device_count, synchronize,
    cached_malloc, cached_free, memset0, copy_bytes, memory_stats, reset_peak, empty_cache,
    copy_cast,
    lm_cuda_pw_shards, lm_cuda_red_shards, 0,
    lm_blas_open, lm_blas_set_allow_tf32, lm_blas_gemm,
    lm_cuda_named_kernel,
    device_name, mem_info,
    event_create, event_destroy, event_record, event_synchronize, event_query, event_elapsed,
    host_alloc, host_free,
};

const lm_cuda_backend *lm_cuda_backend_get(void) {
    static lm_cuda_backend b;
    b = backend;
    b.nshards = lm_cuda_nshards;
    return &b;
}

}  /* extern "C" */
