/* Hand-written CUDA kernels of the nn ops: softmax's family and row gathers
 * (index_select, embedding). Signatures: cuda_kernels.h. */
#include <cuda_runtime.h>
#include <math.h>
#include "cuda_kernels.h"
#include "dtype.h"

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float exp_(float x) { return expf(x); }
__device__ __forceinline__ double exp_(double x) { return exp(x); }
__device__ __forceinline__ float log_(float x) { return logf(x); }
__device__ __forceinline__ double log_(double x) { return log(x); }

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
template <class T>
__device__ __forceinline__ T warp_max(T v) {
    for (int o = 16; o > 0; o >>= 1) {
        T w = __shfl_down_sync(0xffffffffu, v, o);
        v = (w > v || w != w) ? w : v;   /* NaN wins, as the CPU kernel */
    }
    return v;
}

/* the whole block's sum (or max) of v, returned to every thread */
template <class T, bool MAX>
__device__ T block_all(T v, T *smem) {
    v = MAX ? warp_max(v) : warp_sum(v);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 0) smem[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < kThreads / 32 ? smem[lane] : (MAX ? (T)-INFINITY : (T)0);
        v = MAX ? warp_max(v) : warp_sum(v);
        if (lane == 0) smem[0] = v;
    }
    __syncthreads();
    return smem[0];
}

/* inner == 1: a block per row */
template <class T>
__global__ void __launch_bounds__(kThreads) softmax_rows(int64_t R, const T *a, const T *y, T *out, int is_log,
                                                          int backward) {
    __shared__ T smem[kThreads / 32];
    int64_t row = blockIdx.x;
    const T *ar = a + row * R;
    T *orow = out + row * R;
    if (!backward) {
        T m = (T)-INFINITY;
        for (int64_t r = threadIdx.x; r < R; r += kThreads) m = (ar[r] > m || ar[r] != ar[r]) ? ar[r] : m;
        m = block_all<T, true>(m, smem);
        if (m == (T)-INFINITY) m = 0;   /* an all -inf row: NaN results, as PyTorch */
        T s = 0;
        for (int64_t r = threadIdx.x; r < R; r += kThreads) s += exp_(ar[r] - m);
        s = block_all<T, false>(s, smem);
        if (is_log) {
            T lse = m + log_(s);
            for (int64_t r = threadIdx.x; r < R; r += kThreads) orow[r] = ar[r] - lse;
        } else {
            T inv = (T)1 / s;
            for (int64_t r = threadIdx.x; r < R; r += kThreads) orow[r] = exp_(ar[r] - m) * inv;
        }
        return;
    }
    const T *yr = y + row * R;
    T s = 0;
    for (int64_t r = threadIdx.x; r < R; r += kThreads) s += is_log ? ar[r] : ar[r] * yr[r];
    s = block_all<T, false>(s, smem);
    for (int64_t r = threadIdx.x; r < R; r += kThreads)
        orow[r] = is_log ? ar[r] - exp_(yr[r]) * s : yr[r] * (ar[r] - s);
}

/* inner > 1: a thread per (outer, inner) line, neighbouring threads on neighbouring elements */
template <class T>
__global__ void __launch_bounds__(kThreads) softmax_lines(int64_t outer, int64_t R, int64_t inner, const T *a,
                                                           const T *y, T *out, int is_log, int backward) {
    int64_t line = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    if (line >= outer * inner) return;
    int64_t o = line / inner, i = line % inner, base = o * R * inner + i;
    const T *al = a + base;
    T *ol = out + base;
    if (!backward) {
        T m = (T)-INFINITY;
        for (int64_t r = 0; r < R; r++) { T v = al[r * inner]; m = (v > m || v != v) ? v : m; }
        if (m == (T)-INFINITY) m = 0;
        T s = 0;
        for (int64_t r = 0; r < R; r++) s += exp_(al[r * inner] - m);
        if (is_log) {
            T lse = m + log_(s);
            for (int64_t r = 0; r < R; r++) ol[r * inner] = al[r * inner] - lse;
        } else {
            T inv = (T)1 / s;
            for (int64_t r = 0; r < R; r++) ol[r * inner] = exp_(al[r * inner] - m) * inv;
        }
        return;
    }
    const T *yl = y + base;
    T s = 0;
    for (int64_t r = 0; r < R; r++) s += is_log ? al[r * inner] : al[r * inner] * yl[r * inner];
    for (int64_t r = 0; r < R; r++)
        ol[r * inner] = is_log ? al[r * inner] - exp_(yl[r * inner]) * s : yl[r * inner] * (al[r * inner] - s);
}

template <class T>
int softmax_launch(int64_t outer, int64_t R, int64_t inner, const void *a, const void *y, void *out, int is_log,
                   int backward) {
    if (outer * R * inner == 0) return 0;
    if (inner == 1 && outer <= 0x7fffffff)
        softmax_rows<T><<<(unsigned)outer, kThreads>>>(R, (const T *)a, (const T *)y, (T *)out, is_log, backward);
    else
        softmax_lines<T><<<(unsigned)((outer * inner + kThreads - 1) / kThreads), kThreads>>>(
            outer, R, inner, (const T *)a, (const T *)y, (T *)out, is_log, backward);
    return (int)cudaGetLastError();
}

/* a thread per output element of `W` bytes (W: the element size or a divisor of a row's bytes) */
template <class W>
__global__ void index_rows_kernel(int64_t outer, int64_t nidx, int64_t inner_w, int64_t src_dim, const W *src,
                                  const int64_t *idx, W *out, int *bad) {
    int64_t total = outer * nidx * inner_w;
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < total; e += (int64_t)gridDim.x * kThreads) {
        int64_t k = e % inner_w, j = (e / inner_w) % nidx, o = e / (inner_w * nidx);
        int64_t r = idx[j];
        if (r < 0 || r >= src_dim) { out[e] = W{}; if (bad) *bad = 1; continue; }
        out[e] = src[(o * src_dim + r) * inner_w + k];
    }
}

template <class W>
int index_rows_as(int item, int64_t outer, int64_t nidx, int64_t inner, int64_t src_dim, const void *src,
                  const int64_t *idx, void *out, int *bad) {
    int64_t inner_w = inner * item / (int64_t)sizeof(W), total = outer * nidx * inner_w;
    int64_t blocks = (total + kThreads - 1) / kThreads;
    if (blocks > 65535 * 16) blocks = 65535 * 16;
    index_rows_kernel<W><<<(unsigned)blocks, kThreads>>>(outer, nidx, inner_w, src_dim, (const W *)src, idx,
                                                          (W *)out, bad);
    return (int)cudaGetLastError();
}

/* nll_loss: element k = (n, d) picks class t[k] of row n; ignored targets give 0 */
template <class T>
__global__ void nll_forward_kernel(int64_t N, int64_t C, int64_t D, const T *x, const int64_t *t, const T *w,
                                   int64_t ignore, T *vals) {
    int64_t k = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    if (k >= N * D) return;
    int64_t c = t[k], n = k / D, d = k % D;
    vals[k] = c == ignore ? (T)0 : -(w ? w[c] : (T)1) * x[(n * C + c) * D + d];
}

/* out[0] = scale * the sum of n values (one block: losses are short vectors) */
template <class T>
__global__ void sum_scaled_kernel(int64_t n, const T *vals, T *out, double scale) {
    __shared__ double smem[kThreads / 32];
    double s = 0;
    for (int64_t i = threadIdx.x; i < n; i += kThreads) s += (double)vals[i];
    s = block_all<double, false>(s, smem);
    if (threadIdx.x == 0) out[0] = (T)(s * scale);
}

template <class T>
__global__ void nll_backward_kernel(int64_t N, int64_t C, int64_t D, const T *g, int per_element, const int64_t *t,
                                    const T *w, int64_t ignore, double scale, T *dx) {
    int64_t k = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    if (k >= N * D) return;
    int64_t c = t[k], n = k / D, d = k % D;
    if (c == ignore) return;
    T gv = per_element ? g[k] : g[0];
    dx[(n * C + c) * D + d] = -(w ? w[c] : (T)1) * gv * (T)scale;
}

template <class T>
int nll_launch(int backward, int64_t N, int64_t C, int64_t D, const void *a, const int64_t *t, const void *w,
               int64_t ignore, int red, double scale, void *vals, void *out) {
    int64_t n = N * D;
    unsigned blocks = (unsigned)((n + kThreads - 1) / kThreads);
    if (n == 0 && backward) return 0;
    if (backward) {
        nll_backward_kernel<T><<<blocks, kThreads>>>(N, C, D, (const T *)a, red == 0, t, (const T *)w, ignore, scale,
                                                     (T *)out);
        return (int)cudaGetLastError();
    }
    if (n) nll_forward_kernel<T><<<blocks, kThreads>>>(N, C, D, (const T *)a, t, (const T *)w, ignore,
                                                       (T *)(red == 0 ? out : vals));
    if (red != 0) sum_scaled_kernel<T><<<1, kThreads>>>(n, (const T *)vals, (T *)out, scale);
    return (int)cudaGetLastError();
}

/* one Adam/AdamW step over one parameter's elements: the CPU kernel's arithmetic (native/cpu/optim.c) */
struct AdamConsts { double c[10]; };

template <class T>
__global__ void adam_kernel_v(int64_t n, T *p, const T *g, T *m, T *v, AdamConsts k) {
    int64_t i = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    if (i >= n) return;
    const double *c = k.c;
    const T b1 = (T)c[0], c1 = (T)c[1], b2 = (T)c[2], c2 = (T)c[3], e = (T)c[4], ss = (T)c[5], ib = (T)c[6],
            sh = (T)c[7], wd = (T)c[8], sg = (T)c[9];
    T pi = p[i] * sh, gi = g[i] * sg + wd * p[i];
    T mi = m[i] * b1 + gi * c1, vi = v[i] * b2 + gi * gi * c2;
    m[i] = mi;
    v[i] = vi;
    p[i] = pi - ss * mi / (sqrt(vi) * ib + e);
}

}  // namespace

extern "C" int lm_cuda_k_adam(int dtype, int64_t n, void *p, const void *g, void *m, void *v, const double *consts) {
    if (n <= 0) return 0;
    AdamConsts k;
    for (int j = 0; j < 10; j++) k.c[j] = consts[j];
    unsigned blocks = (unsigned)((n + kThreads - 1) / kThreads);
    if (dtype == LM_FLOAT32)
        adam_kernel_v<float><<<blocks, kThreads>>>(n, (float *)p, (const float *)g, (float *)m, (float *)v, k);
    else if (dtype == LM_FLOAT64)
        adam_kernel_v<double><<<blocks, kThreads>>>(n, (double *)p, (const double *)g, (double *)m, (double *)v, k);
    else
        return (int)cudaErrorInvalidValue;
    return (int)cudaGetLastError();
}

extern "C" int lm_cuda_k_nll(int dtype, int backward, int64_t N, int64_t C, int64_t D, const void *a,
                             const int64_t *t, const void *w, int64_t ignore, int red, double scale, void *vals,
                             void *out) {
    if (dtype == LM_FLOAT32) return nll_launch<float>(backward, N, C, D, a, t, w, ignore, red, scale, vals, out);
    if (dtype == LM_FLOAT64) return nll_launch<double>(backward, N, C, D, a, t, w, ignore, red, scale, vals, out);
    return (int)cudaErrorInvalidValue;
}

extern "C" int lm_cuda_k_softmax(int dtype, int64_t outer, int64_t R, int64_t inner, const void *a, const void *y,
                                 void *out, int is_log, int backward) {
    if (dtype == LM_FLOAT32) return softmax_launch<float>(outer, R, inner, a, y, out, is_log, backward);
    if (dtype == LM_FLOAT64) return softmax_launch<double>(outer, R, inner, a, y, out, is_log, backward);
    return (int)cudaErrorInvalidValue;
}

extern "C" int lm_cuda_k_index_rows(int item, int64_t outer, int64_t nidx, int64_t inner, int64_t src_dim,
                                    const void *src, const int64_t *idx, void *out, int *bad) {
    if (outer * nidx * inner == 0) return 0;
    int64_t row = inner * item;   /* widest word dividing a row and both base addresses */
    uintptr_t align = (uintptr_t)src | (uintptr_t)out;
    if (row % 16 == 0 && align % 16 == 0)
        return index_rows_as<float4>(item, outer, nidx, inner, src_dim, src, idx, out, bad);
    if (row % 8 == 0 && align % 8 == 0)
        return index_rows_as<uint64_t>(item, outer, nidx, inner, src_dim, src, idx, out, bad);
    if (row % 4 == 0 && align % 4 == 0)
        return index_rows_as<uint32_t>(item, outer, nidx, inner, src_dim, src, idx, out, bad);
    return index_rows_as<unsigned char>(item, outer, nidx, inner, src_dim, src, idx, out, bad);
}
