/* The one CUDA reduction every generated reduction is launched through, in
 * one pass. A generated op supplies R: identity() and combine(a, b) from its
 * kernel header (LM_RED_NAME_IDENTITY/_COMBINE, the CPU's too).
 *
 * Each output is folded by `splits` slices of its reduced elements. Two
 * shapes of work:
 *  - inner: the reduced elements of one output are spread over a block's
 *    threads (a warp-shuffle + shared-memory block reduction), the usual case
 *    (sum over all, over the last dim);
 *  - outer: each thread folds the reduced elements of one output alone, when
 *    the outputs' stride is the element (sum over dim 0 of a row-major matrix:
 *    neighbouring threads read neighbouring elements).
 * With splits > 1 each slice leaves a partial in a staging buffer and the last
 * block to finish (a counter per group of outputs) combines them. */
#ifndef LOOM_CUDA_REDUCE_CUH
#define LOOM_CUDA_REDUCE_CUH
#include <cuda_runtime.h>
#include <type_traits>
#include "cuda_abi.h"
#include "pointwise.cuh"   /* Vec, widen */

namespace lm {

constexpr int kRedThreads = 256;
constexpr int kRedVec = 4;   /* elements per vector load in dense inner reductions (16-bit: twice as many) */
constexpr int kRedAlign = 8;   /* slices start at a multiple of every dtype's vector */

struct RedGeom {
    int nkept, nred;
    int64_t kept_shape[LM_MAX_DIMS], kept_strides[LM_MAX_DIMS];
    int64_t red_shape[LM_MAX_DIMS], red_strides[LM_MAX_DIMS];
    int64_t nout, count, chunk;   /* chunk: reduced elements per split */
    int splits, mean;
};

__device__ __forceinline__ int64_t geom_offset(int n, const int64_t *shape, const int64_t *strides, int64_t idx) {
    if (n == 1) return idx * strides[0];
    int64_t off = 0;
    for (int d = 0; d < n; d++) {
        int64_t i = idx % shape[d];
        idx /= shape[d];
        off += i * strides[d];
    }
    return off;
}

template <class T>
__device__ __forceinline__ T shfl_down(T v, int o) {
    if constexpr (sizeof(T) == 8) {
        long long b;
        memcpy(&b, &v, 8);
        b = __shfl_down_sync(0xffffffffu, b, o);
        memcpy(&v, &b, 8);
        return v;
    } else if constexpr (sizeof(T) == 4) {
        int b;
        memcpy(&b, &v, 4);
        b = __shfl_down_sync(0xffffffffu, b, o);
        memcpy(&v, &b, 4);
        return v;
    } else {
        return (T)__shfl_down_sync(0xffffffffu, (int)v, o);
    }
}

/* the block's fold of v, valid in thread 0 */
template <class T, class R>
__device__ __forceinline__ T block_fold(T v, const R &r) {
    __shared__ T warp_acc[kRedThreads / 32];
    for (int o = 16; o > 0; o >>= 1) v = r.combine(v, shfl_down(v, o));
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    __syncthreads();   /* warp_acc may still be read by a previous call */
    if (lane == 0) warp_acc[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < kRedThreads / 32 ? warp_acc[lane] : r.identity();
        for (int o = 16; o > 0; o >>= 1) v = r.combine(v, shfl_down(v, o));
    }
    return v;
}

template <class T>
__device__ __forceinline__ T finish(T acc, const RedGeom &g) {
    if constexpr (std::is_floating_point<T>::value) {
        if (g.mean) return acc / (T)g.count;
    }
    return acc;
}

/* element i of a stored-as-S input, in the accumulating type T (float16/bfloat16: float) */
template <class T, class S>
__device__ __forceinline__ T load_as(const char *p) { return (T)widen(*(const S *)p); }

/* inner: block (x = output, y = split) folds its slice with all its threads */
template <class T, class S, class R>
__global__ void __launch_bounds__(kRedThreads) red_inner(RedGeom g, const char *in, T *out, T *staging,
                                                         unsigned *counters, R r) {
    constexpr int NV = sizeof(S) == 2 ? 2 * kRedVec : kRedVec;
    for (int64_t o = blockIdx.x; o < g.nout; o += gridDim.x) {
        const char *base = in + geom_offset(g.nkept, g.kept_shape, g.kept_strides, o);
        int64_t begin = (int64_t)blockIdx.y * g.chunk, end = begin + g.chunk < g.count ? begin + g.chunk : g.count;
        T a0 = r.identity(), a1 = r.identity(), a2 = r.identity(), a3 = r.identity();
        int64_t i = begin + threadIdx.x;
        if (g.nred == 1 && g.red_strides[0] == (int64_t)sizeof(S) &&
            (uintptr_t)(base + begin * (int64_t)sizeof(S)) % (sizeof(S) * NV) == 0) {
            /* dense: NV elements per load, two loads in flight per thread */
            typedef Vec<S, NV> V;
            const V *vb = (const V *)(base + begin * (int64_t)sizeof(S));
            int64_t nv = (end - begin) / NV, j = threadIdx.x;
            for (; j + kRedThreads < nv; j += 2 * kRedThreads) {
                V x = vb[j], y = vb[j + kRedThreads];
#pragma unroll
                for (int k = 0; k < NV; k += 2) {
                    a0 = r.combine(a0, (T)widen(x.v[k]));
                    a1 = r.combine(a1, (T)widen(x.v[k + 1]));
                    a2 = r.combine(a2, (T)widen(y.v[k]));
                    a3 = r.combine(a3, (T)widen(y.v[k + 1]));
                }
            }
            for (; j < nv; j += kRedThreads) {
                V x = vb[j];
#pragma unroll
                for (int k = 0; k < NV; k += 2) {
                    a0 = r.combine(a0, (T)widen(x.v[k]));
                    a1 = r.combine(a1, (T)widen(x.v[k + 1]));
                }
            }
            for (i = begin + nv * NV + threadIdx.x; i < end; i += kRedThreads)
                a0 = r.combine(a0, load_as<T, S>(base + i * (int64_t)sizeof(S)));
        } else if (g.nred == 1) {
            int64_t s = g.red_strides[0];
            for (; i + 3 * kRedThreads < end; i += 4 * kRedThreads) {
                a0 = r.combine(a0, load_as<T, S>(base + i * s));
                a1 = r.combine(a1, load_as<T, S>(base + (i + kRedThreads) * s));
                a2 = r.combine(a2, load_as<T, S>(base + (i + 2 * kRedThreads) * s));
                a3 = r.combine(a3, load_as<T, S>(base + (i + 3 * kRedThreads) * s));
            }
            for (; i < end; i += kRedThreads) a0 = r.combine(a0, load_as<T, S>(base + i * s));
        } else {
            for (; i < end; i += kRedThreads)
                a0 = r.combine(a0, load_as<T, S>(base + geom_offset(g.nred, g.red_shape, g.red_strides, i)));
        }
        T acc = block_fold<T, R>(r.combine(r.combine(a0, a1), r.combine(a2, a3)), r);
        if (g.splits == 1) {
            if (threadIdx.x == 0) out[o] = finish(acc, g);
            continue;
        }
        __shared__ bool last;
        if (threadIdx.x == 0) {
            staging[o * g.splits + blockIdx.y] = acc;
            __threadfence();
            last = atomicAdd(&counters[o], 1u) == (unsigned)g.splits - 1;
        }
        __syncthreads();
        if (last) {
            __threadfence();
            T v = r.identity();
            for (int j = threadIdx.x; j < g.splits; j += kRedThreads)
                v = r.combine(v, ((volatile T *)staging)[o * g.splits + j]);
            v = block_fold<T, R>(v, r);
            if (threadIdx.x == 0) { out[o] = finish(v, g); counters[o] = 0; }
        }
    }
}

/* outer: thread = output, block y = split; the last split of a block's outputs combines */
template <class T, class S, class R>
__global__ void __launch_bounds__(kRedThreads) red_outer(RedGeom g, const char *in, T *out, T *staging,
                                                         unsigned *counters, R r) {
    int64_t o = (int64_t)blockIdx.x * kRedThreads + threadIdx.x;
    T acc = r.identity();
    if (o < g.nout) {
        const char *base = in + geom_offset(g.nkept, g.kept_shape, g.kept_strides, o);
        int64_t begin = (int64_t)blockIdx.y * g.chunk, end = begin + g.chunk < g.count ? begin + g.chunk : g.count;
        for (int64_t i = begin; i < end; i++)
            acc = r.combine(acc, load_as<T, S>(base + geom_offset(g.nred, g.red_shape, g.red_strides, i)));
    }
    if (g.splits == 1) {
        if (o < g.nout) out[o] = finish(acc, g);
        return;
    }
    if (o < g.nout) staging[(int64_t)blockIdx.y * g.nout + o] = acc;
    __threadfence();
    __syncthreads();
    __shared__ bool last;
    if (threadIdx.x == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == (unsigned)g.splits - 1;
    __syncthreads();
    if (last && o < g.nout) {
        __threadfence();
        T v = r.identity();
        for (int j = 0; j < g.splits; j++) v = r.combine(v, ((volatile T *)staging)[(int64_t)j * g.nout + o]);
        out[o] = finish(v, g);
    }
    if (last && threadIdx.x == 0) counters[blockIdx.x] = 0;
}

/* The launch shape of a reduction (host-side, unit-tested without a GPU): blocks along x (outputs,
 * or groups of kRedThreads outputs when outer), and how many slices (*splits, each *chunk reduced
 * elements, vector-aligned) each output's elements are cut into so that about 4 waves of blocks
 * fill the GPU, never slices shorter than a block's worth of loads. */
static inline int64_t plan_reduce(bool outer, int64_t nout, int64_t count, int sms, int64_t *chunk, int *splits) {
    int64_t want = 4LL * sms * (2048 / kRedThreads);
    int64_t xblocks = outer ? (nout + kRedThreads - 1) / kRedThreads : (nout < 65535 * 32 ? nout : 65535 * 32);
    int64_t minchunk = outer ? 64 : 4 * kRedThreads * 4;
    int64_t s = xblocks >= want ? 1 : (want + xblocks - 1) / xblocks;
    int64_t by_size = (count + minchunk - 1) / minchunk;
    if (s > by_size) s = by_size;
    if (s < 1) s = 1;
    if (s > 65535) s = 65535;
    int64_t c = (count + s - 1) / s;
    c = (c + kRedAlign - 1) / kRedAlign * kRedAlign;   /* slices start vector-aligned */
    if (c < 1) c = 1;                            /* an empty reduction: each output is the identity */
    *chunk = c;
    *splits = (int)((count + c - 1) / c);
    if (*splits < 1) *splits = 1;
    return xblocks;
}

/* scratch for split reductions, from the caching allocator (cuda_runtime.cu) */
void *scratch_alloc(size_t nbytes);
void scratch_free(void *p, size_t nbytes);
int sm_count();

/* T: the accumulating type; S: the input's stored type (float16/bfloat16 read as such, folded in float) */
template <class T, class S = T, class R>
static int launch_reduce(const lm_cuda_red_args *a, R r) {
    RedGeom g;
    g.nkept = a->nkept;
    g.nred = a->nred;
    for (int d = 0; d < LM_MAX_DIMS; d++) {
        g.kept_shape[d] = a->kept_shape[d]; g.kept_strides[d] = a->kept_strides[d];
        g.red_shape[d] = a->red_shape[d]; g.red_strides[d] = a->red_strides[d];
    }
    g.nout = a->nout;
    g.count = a->count;
    g.mean = a->mean;
    if (g.nout == 0) return 0;
    bool outer = g.nkept >= 1 && g.kept_strides[0] == (int64_t)sizeof(S) &&
                 !(g.nred >= 1 && g.red_strides[0] == (int64_t)sizeof(S));
    int64_t xblocks = plan_reduce(outer, g.nout, g.count, sm_count(), &g.chunk, &g.splits);
    T *staging = nullptr;
    unsigned *counters = nullptr;
    size_t sbytes = 0, cbytes = 0;
    if (g.splits > 1) {
        sbytes = (size_t)g.nout * (size_t)g.splits * sizeof(T);
        cbytes = (size_t)(outer ? xblocks : g.nout) * sizeof(unsigned);
        staging = (T *)scratch_alloc(sbytes);
        counters = (unsigned *)scratch_alloc(cbytes);
        if (!staging || !counters) {
            scratch_free(staging, sbytes);
            scratch_free(counters, cbytes);
            return (int)cudaErrorMemoryAllocation;
        }
        cudaMemsetAsync(counters, 0, cbytes);
    }
    dim3 grid((unsigned)xblocks, (unsigned)g.splits);
    if (outer) red_outer<T, S, R><<<grid, kRedThreads>>>(g, a->in, (T *)a->out, staging, counters, r);
    else red_inner<T, S, R><<<grid, kRedThreads>>>(g, a->in, (T *)a->out, staging, counters, r);
    int err = (int)cudaGetLastError();
    scratch_free(staging, sbytes);   /* stream-ordered reuse: later work on the one stream follows this kernel */
    scratch_free(counters, cbytes);
    return err;
}

}  // namespace lm

#endif
