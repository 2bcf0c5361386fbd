/* The hand-written CUDA kernels of cumsum, cumprod, logcumsumexp, cummax and cummin
 * (native/cpu/scan.c): a thread per scanned line, walking it as the CPU's loop does (floats
 * accumulate in double, integers in int64, a product wraps as unsigned). Signatures: cuda_kernels.h. */
#include <cuda_runtime.h>
#include <math.h>
#include "cuda_abi.h"
#include "cuda_kernels.h"
#include "dtype.h"

namespace {

constexpr int kThreads = 256;

/* log(e^a + e^b) without overflow; equal infinities give themselves (scan.c's) */
__device__ double logaddexp_d(double a, double b) {
    if (a == b && isinf(a)) return a;
    double m = a > b ? a : b;
    return m + log1p(exp(-fabs(a - b)));
}

/* where the line starts in x (xo) and in the outputs (oo) */
__device__ void line_start(const lm_cuda_scan_geom &G, int64_t l, int64_t *xo, int64_t *oo) {
    int64_t rest = l;
    *xo = *oo = 0;
    for (int k = G.nd - 1; k >= 0; k--) {
        if (k == G.d) continue;
        int64_t p = rest % G.shape[k];
        rest /= G.shape[k];
        *xo += p * G.x_strides[k];
        *oo += p * G.out_strides[k];
    }
}

template <class T>
__global__ void scan_kernel(lm_cuda_scan_geom G, int64_t lines, int mode, int is_float, const T *x, T *out) {
    int d = G.d;
    int64_t n = G.shape[d];
    for (int64_t l = (int64_t)blockIdx.x * kThreads + threadIdx.x; l < lines; l += (int64_t)gridDim.x * kThreads) {
        int64_t xo, oo;
        line_start(G, l, &xo, &oo);
        double accd = mode == 0 ? 0 : mode == 1 ? 1 : -INFINITY;
        int64_t acci = mode == 1;
        for (int64_t i = 0; i < n; i++) {
            T v = x[xo + i * G.x_strides[d]];
            if (is_float) {
                accd = mode == 0 ? accd + (double)v : mode == 1 ? accd * (double)v : logaddexp_d(accd, (double)v);
                out[oo + i * G.out_strides[d]] = (T)accd;
            } else {
                acci = mode == 0 ? acci + (int64_t)v : (int64_t)((uint64_t)acci * (uint64_t)(int64_t)v);
                out[oo + i * G.out_strides[d]] = (T)acci;
            }
        }
    }
}

template <class T>
__global__ void scan_extreme_kernel(lm_cuda_scan_geom G, int64_t lines, int is_max, const T *x, T *vals,
                                    int64_t *idx) {
    int d = G.d;
    int64_t n = G.shape[d];
    for (int64_t l = (int64_t)blockIdx.x * kThreads + threadIdx.x; l < lines; l += (int64_t)gridDim.x * kThreads) {
        int64_t xo, oo;
        line_start(G, l, &xo, &oo);
        T best = x[xo];
        int64_t at = 0;
        for (int64_t i = 0; i < n; i++) {
            T v = x[xo + i * G.x_strides[d]];
            if (v != v || (is_max ? v >= best : v <= best)) {
                best = v;
                at = i;
            }
            vals[oo + i * G.out_strides[d]] = best;
            idx[oo + i * G.out_strides[d]] = at;
        }
    }
}

/* the lines of G (none when it has no elements) and a grid over them */
int64_t lines_of(const lm_cuda_scan_geom *G, unsigned *grid) {
    int64_t n = 1;
    for (int k = 0; k < G->nd; k++) n *= G->shape[k];
    int64_t lines = n ? n / G->shape[G->d] : 0, blocks = (lines + kThreads - 1) / kThreads;
    *grid = (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
    return lines;
}

template <class T>
int scan_extreme_launch(int is_max, const lm_cuda_scan_geom *G, const void *x, void *vals, int64_t *idx) {
    unsigned grid;
    int64_t lines = lines_of(G, &grid);
    if (lines == 0) return 0;
    scan_extreme_kernel<T><<<grid, kThreads>>>(*G, lines, is_max, (const T *)x, (T *)vals, idx);
    return (int)cudaGetLastError();
}

template <class T>
int scan_launch(int mode, int is_float, const lm_cuda_scan_geom *G, const void *x, void *out) {
    unsigned grid;
    int64_t lines = lines_of(G, &grid);
    if (lines == 0) return 0;
    scan_kernel<T><<<grid, kThreads>>>(*G, lines, mode, is_float, (const T *)x, (T *)out);
    return (int)cudaGetLastError();
}

}  // namespace

extern "C" int lm_cuda_k_scan(int dtype, int mode, int is_float, const lm_cuda_scan_geom *G, const void *x,
                              void *out) {
    switch (dtype) {
#define X(E, T, name) \
    case E: return scan_launch<T>(mode, is_float, G, x, out);
        LM_FOR_EACH_DTYPE(X)
#undef X
    default: return (int)cudaErrorInvalidValue;
    }
}

extern "C" int lm_cuda_k_scan_extreme(int dtype, int is_max, const lm_cuda_scan_geom *G, const void *x, void *vals,
                                      int64_t *idx) {
    switch (dtype) {
#define X(E, T, name) \
    case E: return scan_extreme_launch<T>(is_max, G, x, vals, idx);
        LM_FOR_EACH_DTYPE(X)
#undef X
    default: return (int)cudaErrorInvalidValue;
    }
}
