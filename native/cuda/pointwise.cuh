/* The one CUDA pointwise machinery every generated op (and every cast) is
 * launched through. A generated op supplies a functor over its kernel body
 * (the same LM_PW_ macro the CPU loops expand); this file owns the indexing:
 *  - contiguous operands (the common case): 4 elements per thread through
 *    aligned vector loads and stores;
 *  - any strides and broadcasting: an offset calculator over the coalesced
 *    dims, in 32-bit arithmetic when every offset fits, else 64-bit.
 * Inputs that are CPU numbers arrive by value (lm_cuda_pw_args.scalars). */
#ifndef LOOM_CUDA_POINTWISE_CUH
#define LOOM_CUDA_POINTWISE_CUH
#include <cuda_runtime.h>
#include <string.h>
#include "cuda_abi.h"

namespace lm {

constexpr int kThreads = 256;
constexpr int kVec = 4;   /* elements per thread in the contiguous kernel; 8 where every operand is 16-bit or less */

template <class O, class T>
constexpr int vec_of() { return sizeof(O) <= 2 && sizeof(T) <= 2 ? 2 * kVec : kVec; }

/* an element as the reductions fold it: float16/bfloat16 widened to float, others as they are */
template <class T>
__device__ __forceinline__ T widen(T v) { return v; }
__device__ __forceinline__ float widen(lm_float16 h) { return lm_float16_to_float(h); }
__device__ __forceinline__ float widen(lm_bfloat16 h) { return lm_bfloat16_to_float(h); }

template <int NOPS, class I>
struct Offsets {
    int ndim;
    I shape[LM_MAX_DIMS];
    I strides[LM_MAX_DIMS][NOPS];
};

/* element `idx` (in the iteration order, dim 0 fastest) -> byte offset of each operand */
template <int NOPS, class I>
__host__ __device__ __forceinline__ void offsets_of(const Offsets<NOPS, I> &c, I idx, I (&off)[NOPS]) {
#pragma unroll
    for (int k = 0; k < NOPS; k++) off[k] = 0;
#pragma unroll
    for (int d = 0; d < LM_MAX_DIMS; d++) {
        if (d == c.ndim) break;
        I i = idx % c.shape[d];
        idx /= c.shape[d];
#pragma unroll
        for (int k = 0; k < NOPS; k++) off[k] += i * c.strides[d][k];
    }
}

template <class T, int NIN>
struct Inputs {
    char *data[NIN + 1];
    unsigned mask;   /* bit k: operand k is the by-value scalar sval[k - 1] */
    T sval[NIN];
};

template <class O, class T, int NIN, class F>
__device__ __forceinline__ O apply(const F &f, const T (&v)[NIN]) {
    if constexpr (NIN == 1) return f(v[0]);
    else if constexpr (NIN == 2) return f(v[0], v[1]);
    else return f(v[0], v[1], v[2]);
}

template <class T, int N>
struct alignas(sizeof(T) * N) Vec { T v[N]; };

template <class O, class T, int NIN, class F>
__global__ void __launch_bounds__(kThreads) pw_contiguous(Inputs<T, NIN> in, int64_t n, F f) {
    constexpr int kVec = vec_of<O, T>();
    int64_t base = ((int64_t)blockIdx.x * kThreads + threadIdx.x) * kVec;
    if (base >= n) return;
    if (base + kVec <= n) {
        T v[NIN][kVec];
#pragma unroll
        for (int k = 0; k < NIN; k++) {
            if (in.mask & (2u << k)) {
#pragma unroll
                for (int j = 0; j < kVec; j++) v[k][j] = in.sval[k];
            } else {
                Vec<T, kVec> x = *(const Vec<T, kVec> *)(in.data[k + 1] + base * (int64_t)sizeof(T));
#pragma unroll
                for (int j = 0; j < kVec; j++) v[k][j] = x.v[j];
            }
        }
        Vec<O, kVec> o;
#pragma unroll
        for (int j = 0; j < kVec; j++) {
            T e[NIN];
#pragma unroll
            for (int k = 0; k < NIN; k++) e[k] = v[k][j];
            o.v[j] = apply<O, T, NIN>(f, e);
        }
        *(Vec<O, kVec> *)(in.data[0] + base * (int64_t)sizeof(O)) = o;
        return;
    }
    for (int64_t i = base; i < n; i++) {
        T e[NIN];
#pragma unroll
        for (int k = 0; k < NIN; k++)
            e[k] = (in.mask & (2u << k)) ? in.sval[k] : ((const T *)in.data[k + 1])[i];
        ((O *)in.data[0])[i] = apply<O, T, NIN>(f, e);
    }
}

template <class O, class T, int NIN, class F, class I>
__global__ void __launch_bounds__(kThreads) pw_strided(Inputs<T, NIN> in, Offsets<NIN + 1, I> oc, I n, F f) {
    I stride = (I)gridDim.x * kThreads;
    for (I idx = (I)blockIdx.x * kThreads + threadIdx.x; idx < n; idx += stride) {
        I off[NIN + 1];
        offsets_of<NIN + 1, I>(oc, idx, off);
        T e[NIN];
#pragma unroll
        for (int k = 0; k < NIN; k++)
            e[k] = (in.mask & (2u << k)) ? in.sval[k] : *(const T *)(in.data[k + 1] + off[k + 1]);
        *(O *)(in.data[0] + off[0]) = apply<O, T, NIN>(f, e);
    }
}

static inline bool fits32(const lm_iter &it, int64_t lim = (int64_t)1 << 31) {
    if (it.numel >= lim) return false;
    for (int k = 0; k < it.nops; k++) {
        int64_t span = 0;
        for (int d = 0; d < it.ndim; d++) span += (it.shape[d] - 1) * (it.strides[d][k] < 0 ? -it.strides[d][k] : it.strides[d][k]);
        if (span >= lim) return false;
    }
    return true;
}

/* go(piece) over pieces of `it` that each fit 32-bit offsets (below `lim`), as PyTorch's
 * with_32bit_indexing: the dim spanning the most bytes is halved until every piece fits. One strided
 * kernel per op and dtype then serves every size: a 64-bit twin would add a third of the CUDA build
 * for tensors of 2^31 elements or bytes, which are few. Returns the first nonzero go() gives. */
template <class G>
static int for_32bit_pieces(const lm_iter &it, G go, int64_t lim = (int64_t)1 << 31) {
    if (fits32(it, lim)) return go(it);
    int cut = -1;
    int64_t most = -1;
    for (int d = 0; d < it.ndim; d++) {
        if (it.shape[d] < 2) continue;
        int64_t span = it.shape[d];   /* a dim every operand broadcasts still holds elements */
        for (int k = 0; k < it.nops; k++) {
            int64_t s = (it.shape[d] - 1) * (it.strides[d][k] < 0 ? -it.strides[d][k] : it.strides[d][k]);
            span = s > span ? s : span;
        }
        if (span > most) most = span, cut = d;
    }
    lm_iter a = it, b = it;
    int64_t n = it.shape[cut], h = n / 2;
    a.shape[cut] = h;
    b.shape[cut] = n - h;
    a.numel = it.numel / n * h;
    b.numel = it.numel / n * (n - h);
    for (int k = 0; k < it.nops; k++) b.data[k] = it.data[k] + h * it.strides[cut][k];
    int e = for_32bit_pieces(a, go, lim);
    return e ? e : for_32bit_pieces(b, go, lim);
}

template <int NOPS, class I>
static inline Offsets<NOPS, I> offsets_from(const lm_iter &it) {
    Offsets<NOPS, I> c;
    c.ndim = it.ndim;
    for (int d = 0; d < it.ndim; d++) {
        c.shape[d] = (I)it.shape[d];
        for (int k = 0; k < NOPS; k++) c.strides[d][k] = (I)it.strides[d][k];
    }
    return c;
}

static inline unsigned grid_for(int64_t work) {
    int64_t b = (work + kThreads - 1) / kThreads;
    return (unsigned)(b < 1 ? 1 : b > 65535 * 32 ? 65535 * 32 : b);
}

/* Launch f over a->it: out[i] = f(in0[i], ...). Returns 0 or the CUDA error. */
template <class O, class T, int NIN, class F>
static int launch_pointwise(const lm_cuda_pw_args *a, F f) {
    const lm_iter &it = a->it;
    if (it.numel == 0) return 0;
    Inputs<T, NIN> in;
    in.mask = a->scalar_mask;
    for (int k = 0; k <= NIN; k++) in.data[k] = it.data[k];
    for (int k = 0; k < NIN; k++) memcpy(&in.sval[k], &a->scalars[k + 1], sizeof(T));
    /* contiguous: one dim, every array operand dense, vector-aligned */
    constexpr int kVec = vec_of<O, T>();
    bool contiguous = it.ndim <= 1;
    if (contiguous && it.ndim == 1) {
        if (it.strides[0][0] != (int64_t)sizeof(O) || ((uintptr_t)it.data[0] % (sizeof(O) * kVec))) contiguous = false;
        for (int k = 1; k <= NIN; k++)
            if (!(in.mask & (1u << k)) && (it.strides[0][k] != (int64_t)sizeof(T) ||
                                           ((uintptr_t)it.data[k] % (sizeof(T) * kVec))))
                contiguous = false;
    }
    if (contiguous) {
        pw_contiguous<O, T, NIN, F><<<(unsigned)((it.numel + kThreads * kVec - 1) / (kThreads * kVec)), kThreads>>>(
            in, it.numel, f);
        return (int)cudaGetLastError();
    }
    return for_32bit_pieces(it, [&](const lm_iter &p) {
        for (int k = 0; k <= NIN; k++) in.data[k] = p.data[k];
        pw_strided<O, T, NIN, F, uint32_t><<<grid_for(p.numel), kThreads>>>(
            in, offsets_from<NIN + 1, uint32_t>(p), (uint32_t)p.numel, f);
        return (int)cudaGetLastError();
    });
}

}  // namespace lm

#endif
