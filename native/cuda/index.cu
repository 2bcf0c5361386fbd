/* Hand-written CUDA kernels of gather, scatter (.src, .value, scatter_add) and index_add
 * (native/cpu/gather_scatter.c, index_select.c): a thread per element read; a thread per line of
 * writes along the indexed dim, walking it in the CPU's order, so the last write wins and sums
 * add in the same order, with no atomics (two lines never write the same element: they differ
 * off the indexed dim, where the index's position is the output's). Signatures: cuda_kernels.h. */
#include <cuda_runtime.h>
#include <string.h>
#include "cuda_abi.h"
#include "cuda_kernels.h"
#include "dtype.h"

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
    int64_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < (1 << 20) ? b : (1 << 20));
}

template <class T>
__global__ void gather_kernel(lm_cuda_gather_geom G, int64_t n, const T *self, const int64_t *idx, T *out, int *bad) {
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < n; e += (int64_t)gridDim.x * kThreads) {
        int64_t v = idx[e];
        if (v < 0 || v >= G.size) {
            *bad = 1;
            continue;
        }
        int64_t rest = e, off = 0;
        for (int k = G.nd - 1; k >= 0; k--) {
            int64_t p = rest % G.shape[k];
            rest /= G.shape[k];
            off += (k == G.d ? v : p) * G.self_strides[k];
        }
        out[e] = self[off];
    }
}

/* line l: the index positions differing only along d */
template <class T>
__global__ void scatter_kernel(lm_cuda_gather_geom G, int64_t lines, int mode, T *out, const int64_t *idx,
                               const T *src, T fill, int *bad) {
    int d = G.d;
    for (int64_t l = (int64_t)blockIdx.x * kThreads + threadIdx.x; l < lines; l += (int64_t)gridDim.x * kThreads) {
        int64_t rest = l, o = 0, s = 0, i = 0, istride = 1, id = 0;
        for (int k = G.nd - 1; k >= 0; k--) {
            if (k == d) {
                id = istride;
            } else {
                int64_t p = rest % G.shape[k];
                rest /= G.shape[k];
                o += p * G.self_strides[k];
                s += p * G.src_strides[k];
                i += p * istride;
            }
            istride *= G.shape[k];
        }
        for (int64_t t = 0; t < G.shape[d]; t++) {
            int64_t v = idx[i + t * id];
            if (v < 0 || v >= G.size) {
                *bad = 1;
                continue;
            }
            T *at = out + o + v * G.self_strides[d];
            T x = mode == 1 ? fill : src[s + t * G.src_strides[d]];
            *at = mode == 2 ? (T)(*at + x) : x;
        }
    }
}

template <class T>
__global__ void index_add_kernel(int64_t outer, int64_t size, int64_t m, int64_t inner, T *out, const int64_t *idx,
                                 const T *src, T alpha) {
    for (int64_t l = (int64_t)blockIdx.x * kThreads + threadIdx.x; l < outer * inner;
         l += (int64_t)gridDim.x * kThreads) {
        int64_t o = l / inner, i = l % inner;
        for (int64_t j = 0; j < m; j++) {
            T *at = out + (o * size + idx[j]) * inner + i;
            *at = (T)(*at + alpha * src[(o * m + j) * inner + i]);
        }
    }
}

int64_t numel(const lm_cuda_gather_geom *G) {
    int64_t n = 1;
    for (int k = 0; k < G->nd; k++) n *= G->shape[k];
    return n;
}

template <class T>
int gather_launch(const lm_cuda_gather_geom *G, const void *self, const int64_t *idx, void *out, int *bad) {
    int64_t n = numel(G);
    if (n == 0) return 0;
    gather_kernel<T><<<blocks_for(n), kThreads>>>(*G, n, (const T *)self, idx, (T *)out, bad);
    return (int)cudaGetLastError();
}

template <class T>
int scatter_launch(int mode, const lm_cuda_gather_geom *G, void *out, const int64_t *idx, const void *src,
                   const void *fill, int *bad) {
    int64_t n = numel(G);
    if (n == 0) return 0;
    T f{};
    if (mode == 1) memcpy(&f, fill, sizeof f);
    int64_t lines = n / G->shape[G->d];
    scatter_kernel<T><<<blocks_for(lines), kThreads>>>(*G, lines, mode, (T *)out, idx, (const T *)src, f, bad);
    return (int)cudaGetLastError();
}

template <class T>
int index_add_launch(int64_t outer, int64_t size, int64_t m, int64_t inner, void *out, const int64_t *idx,
                     const void *src, const void *alpha) {
    if (outer * inner == 0 || m == 0) return 0;
    T a;
    memcpy(&a, alpha, sizeof a);
    index_add_kernel<T><<<blocks_for(outer * inner), kThreads>>>(outer, size, m, inner, (T *)out, idx,
                                                                 (const T *)src, a);
    return (int)cudaGetLastError();
}

}  // namespace

extern "C" int lm_cuda_k_gather(int dtype, const lm_cuda_gather_geom *G, const void *self, const int64_t *idx,
                                void *out, int *bad) {
    switch (dtype) {
#define X(E, T, name) \
    case E: return gather_launch<T>(G, self, idx, out, bad);
        LM_FOR_EACH_DTYPE(X)
#undef X
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int lm_cuda_k_scatter(int dtype, int mode, const lm_cuda_gather_geom *G, void *out, const int64_t *idx,
                                 const void *src, const void *fill, int *bad) {
    switch (dtype) {
#define X(E, T, name) \
    case E: return scatter_launch<T>(mode, G, out, idx, src, fill, bad);
        LM_FOR_EACH_DTYPE(X)
#undef X
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int lm_cuda_k_index_add(int dtype, int64_t outer, int64_t size, int64_t m, int64_t inner, void *out,
                                   const int64_t *idx, const void *src, const void *alpha) {
    switch (dtype) {
#define X(E, T, name) \
    case E: return index_add_launch<T>(outer, size, m, inner, out, idx, src, alpha);
        LM_FOR_EACH_DTYPE(X)
#undef X
    default: return (int)cudaErrorInvalidValue;
    }
}
