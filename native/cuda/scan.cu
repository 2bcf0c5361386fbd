/* The hand-written CUDA kernel of cumsum, cumprod and logcumsumexp (native/cpu/scan.c): a thread
 * per scanned line, accumulating as the CPU's loop does (floats in double, integers in int64, a
 * product wrapping as unsigned). Signature: cuda_kernels.h. */
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

template <class T>
__global__ void scan_kernel(lm_cuda_scan_geom G, int64_t lines, int mode, int is_float, const T *x, T *out) {
    int d = G.d;
    int64_t n = G.shape[d];
    for (int64_t l = (int64_t)blockIdx.x * kThreads + threadIdx.x; l < lines; l += (int64_t)gridDim.x * kThreads) {
        int64_t rest = l, xo = 0, oo = 0;
        for (int k = G.nd - 1; k >= 0; k--) {
            if (k == d) continue;
            int64_t p = rest % G.shape[k];
            rest /= G.shape[k];
            xo += p * G.x_strides[k];
            oo += p * G.out_strides[k];
        }
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
int scan_launch(int mode, int is_float, const lm_cuda_scan_geom *G, const void *x, void *out) {
    int64_t n = 1;
    for (int k = 0; k < G->nd; k++) n *= G->shape[k];
    if (n == 0) return 0;
    int64_t lines = n / G->shape[G->d], blocks = (lines + kThreads - 1) / kThreads;
    scan_kernel<T><<<(unsigned)(blocks < (1 << 20) ? blocks : (1 << 20)), kThreads>>>(*G, lines, mode, is_float,
                                                                                     (const T *)x, (T *)out);
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
