/* conv2d's column kernels on the device (im2col, col2im and the bias fill) and
 * max_pool2d's two;
 * the products are cuBLAS (native/cuda/host_conv.c). A thread per column (or
 * input) element; col2im gathers the taps of each input element, so it needs
 * no atomics and gives the same sums every run. */
#include <cuda_runtime.h>
#include "cuda_kernels.h"
#include "dtype.h"

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) {
    int64_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b > 65535 * 32 ? 65535 * 32 : b);
}

/* col[n * sN + k * sK + l] over n < N, k = (c, i, j) < K, l = (oh, ow) < L, for group g */
template <class T>
__global__ void im2col_kernel(lm_cuda_conv_geom G, const T *x, int64_t g, T *col, int64_t sN, int64_t sK) {
    int64_t total = G.N * G.K * G.L;
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < total; e += (int64_t)gridDim.x * kThreads) {
        int64_t l = e % G.L, k = (e / G.L) % G.K, n = e / (G.L * G.K);
        int64_t ow = l % G.OW, oh = l / G.OW;
        int64_t j = k % G.kw, i = (k / G.kw) % G.kh, c = k / (G.kw * G.kh);
        int64_t h = oh * G.sh - G.ph + i * G.dh, w = ow * G.sw - G.pw + j * G.dw;
        T v = 0;
        if (h >= 0 && h < G.H && w >= 0 && w < G.W) v = x[((n * G.C + g * G.Cg + c) * G.H + h) * G.W + w];
        col[n * sN + k * sK + l] = v;
    }
}

/* dx[n, g*Cg + c, h, w] = the sum of the column entries its taps produced */
template <class T>
__global__ void col2im_kernel(lm_cuda_conv_geom G, const T *col, int64_t g, T *dx, int64_t sN, int64_t sK) {
    int64_t total = G.N * G.Cg * G.H * G.W;
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < total; e += (int64_t)gridDim.x * kThreads) {
        int64_t w = e % G.W, h = (e / G.W) % G.H, c = (e / (G.W * G.H)) % G.Cg, n = e / (G.W * G.H * G.Cg);
        T s = 0;
        for (int64_t i = 0; i < G.kh; i++) {
            int64_t th = h + G.ph - i * G.dh;
            if (th < 0 || th % G.sh) continue;
            int64_t oh = th / G.sh;
            if (oh >= G.OH) continue;
            for (int64_t j = 0; j < G.kw; j++) {
                int64_t tw = w + G.pw - j * G.dw;
                if (tw < 0 || tw % G.sw) continue;
                int64_t ow = tw / G.sw;
                if (ow >= G.OW) continue;
                s += col[n * sN + ((c * G.kh + i) * G.kw + j) * sK + oh * G.OW + ow];
            }
        }
        dx[((n * G.C + g * G.Cg + c) * G.H + h) * G.W + w] = s;
    }
}

/* out (N, O, L) <- bias[o * stride] */
template <class T>
__global__ void bias_fill_kernel(int64_t N, int64_t O, int64_t L, const T *bias, int64_t stride, T *out) {
    int64_t total = N * O * L;
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < total; e += (int64_t)gridDim.x * kThreads)
        out[e] = bias[((e / L) % O) * stride];
}

/* max_pool2d: a thread per output; the first maximum of the window wins, a NaN wins over
 * numbers (the last NaN), as the CPU kernel and PyTorch; the flat h * W + w of it is the index */
template <class T>
__global__ void max_pool_kernel(lm_cuda_pool_geom G, const T *x, T *vals, int64_t *idx) {
    int64_t total = G.planes * G.OH * G.OW;
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < total; e += (int64_t)gridDim.x * kThreads) {
        int64_t ow = e % G.OW, oh = (e / G.OW) % G.OH, pl = e / (G.OW * G.OH);
        const T *plane = x + pl * G.H * G.W;
        int64_t hs = oh * G.sh - G.ph, ws = ow * G.sw - G.pw, best = -1;
        T m = 0;
        for (int64_t i = 0; i < G.kh; i++) {
            int64_t h = hs + i * G.dh;
            if (h < 0 || h >= G.H) continue;
            for (int64_t j = 0; j < G.kw; j++) {
                int64_t w = ws + j * G.dw;
                if (w < 0 || w >= G.W) continue;
                T v = plane[h * G.W + w];
                if (best < 0 || v > m || v != v) { m = v; best = h * G.W + w; }
            }
        }
        vals[e] = m;
        idx[e] = best;
    }
}

/* dx (zeroed) += grad at each output's index; an index off the plane sets *bad */
template <class T>
__global__ void max_pool_backward_kernel(int64_t planes, int64_t OL, int64_t HW, const T *g, const int64_t *idx,
                                         T *dx, int *bad) {
    int64_t total = planes * OL;
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < total; e += (int64_t)gridDim.x * kThreads) {
        int64_t at = idx[e];
        if (at < 0 || at >= HW) { *bad = 1; continue; }
        atomicAdd(dx + (e / OL) * HW + at, g[e]);
    }
}

}  // namespace

extern "C" int lm_cuda_k_max_pool(int dtype, const lm_cuda_pool_geom *G, const void *x, void *vals, int64_t *idx) {
    unsigned b = blocks_for(G->planes * G->OH * G->OW);
#define LM_POOL_CASE(E, C, N) case E: max_pool_kernel<C><<<b, kThreads>>>(*G, (const C *)x, (C *)vals, idx); break;
    switch (dtype) {
        LM_FOR_EACH_DTYPE(LM_POOL_CASE)
        default: return (int)cudaErrorInvalidValue;
    }
#undef LM_POOL_CASE
    return (int)cudaGetLastError();
}

extern "C" int lm_cuda_k_max_pool_backward(int dtype, int64_t planes, int64_t OL, int64_t HW, const void *g,
                                           const int64_t *idx, void *dx, int *bad) {
    unsigned b = blocks_for(planes * OL);
    if (dtype == LM_FLOAT32)
        max_pool_backward_kernel<float><<<b, kThreads>>>(planes, OL, HW, (const float *)g, idx, (float *)dx, bad);
    else if (dtype == LM_FLOAT64)
        max_pool_backward_kernel<double><<<b, kThreads>>>(planes, OL, HW, (const double *)g, idx, (double *)dx, bad);
    else
        return (int)cudaErrorInvalidValue;
    return (int)cudaGetLastError();
}

extern "C" int lm_cuda_k_im2col(int dtype, const lm_cuda_conv_geom *G, const void *x, int64_t g, void *col,
                                int64_t sN, int64_t sK) {
    unsigned b = blocks_for(G->N * G->K * G->L);
    if (dtype == LM_FLOAT32) im2col_kernel<float><<<b, kThreads>>>(*G, (const float *)x, g, (float *)col, sN, sK);
    else if (dtype == LM_FLOAT64) im2col_kernel<double><<<b, kThreads>>>(*G, (const double *)x, g, (double *)col, sN, sK);
    else return (int)cudaErrorInvalidValue;
    return (int)cudaGetLastError();
}

extern "C" int lm_cuda_k_col2im(int dtype, const lm_cuda_conv_geom *G, const void *col, int64_t g, void *dx,
                                int64_t sN, int64_t sK) {
    unsigned b = blocks_for(G->N * G->Cg * G->H * G->W);
    if (dtype == LM_FLOAT32) col2im_kernel<float><<<b, kThreads>>>(*G, (const float *)col, g, (float *)dx, sN, sK);
    else if (dtype == LM_FLOAT64) col2im_kernel<double><<<b, kThreads>>>(*G, (const double *)col, g, (double *)dx, sN, sK);
    else return (int)cudaErrorInvalidValue;
    return (int)cudaGetLastError();
}

extern "C" int lm_cuda_k_bias_fill(int dtype, int64_t N, int64_t O, int64_t L, const void *bias, int64_t stride,
                                   void *out) {
    unsigned b = blocks_for(N * O * L);
    if (dtype == LM_FLOAT32) bias_fill_kernel<float><<<b, kThreads>>>(N, O, L, (const float *)bias, stride, (float *)out);
    else if (dtype == LM_FLOAT64) bias_fill_kernel<double><<<b, kThreads>>>(N, O, L, (const double *)bias, stride, (double *)out);
    else return (int)cudaErrorInvalidValue;
    return (int)cudaGetLastError();
}
