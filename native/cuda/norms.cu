/* Hand-written CUDA kernels of layer_norm's and batch_norm's training kernels and their
 * backwards (native/cpu/layer_norm.c, batch_norm.c hold the arithmetic): a block per row or
 * channel, sums in double as the CPU's. Signatures: cuda_kernels.h. */
#include <cuda_runtime.h>
#include <math.h>
#include "cuda_kernels.h"
#include "dtype.h"

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 1 << 20;   /* rows or channels past it loop over the grid */

/* the whole block's sum of v, returned to every thread (every thread of the block calls it) */
__device__ double block_sum(double v, double *smem) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    __syncthreads();   /* the previous call's readers of smem[0] are done */
    if (lane == 0) smem[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < kThreads / 32 ? smem[lane] : 0;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0) smem[0] = v;
    }
    __syncthreads();
    return smem[0];
}

unsigned grid_for(int64_t n) { return (unsigned)(n < kMaxBlocks ? n : kMaxBlocks); }

template <class T>
__global__ void __launch_bounds__(kThreads) ln_forward(int64_t M, int64_t N, double eps, const T *x, const T *w,
                                                        const T *b, T *y, T *mean, T *rstd) {
    __shared__ double smem[kThreads / 32];
    for (int64_t r = blockIdx.x; r < M; r += gridDim.x) {
        const T *xr = x + r * N;
        T *yr = y + r * N;
        double s = 0, q = 0;
        for (int64_t j = threadIdx.x; j < N; j += kThreads) s += (double)xr[j];
        double mu = block_sum(s, smem) / (double)N;
        for (int64_t j = threadIdx.x; j < N; j += kThreads) q += ((double)xr[j] - mu) * ((double)xr[j] - mu);
        double rs = 1 / sqrt(block_sum(q, smem) / (double)N + eps);
        T m = (T)mu, k = (T)rs;
        for (int64_t j = threadIdx.x; j < N; j += kThreads) {
            T v = (xr[j] - m) * k;
            if (w) v *= w[j];
            if (b) v += b[j];
            yr[j] = v;
        }
        if (threadIdx.x == 0) {
            mean[r] = m;
            rstd[r] = k;
        }
    }
}

/* d input, a block per row */
template <class T>
__global__ void __launch_bounds__(kThreads) ln_backward_rows(int64_t M, int64_t N, const T *dy, const T *x,
                                                              const T *mean, const T *rstd, const T *w, T *dx) {
    __shared__ double smem[kThreads / 32];
    for (int64_t r = blockIdx.x; r < M; r += gridDim.x) {
        const T *xr = x + r * N, *gr = dy + r * N;
        T *dxr = dx + r * N;
        T m = mean[r], k = rstd[r];
        double a = 0, c = 0;
        for (int64_t j = threadIdx.x; j < N; j += kThreads) {
            T xh = (xr[j] - m) * k, g = w ? gr[j] * w[j] : gr[j];
            a += (double)g;
            c += (double)g * (double)xh;
        }
        a = block_sum(a, smem);
        c = block_sum(c, smem);
        T am = (T)(a / (double)N), cm = (T)(c / (double)N);
        for (int64_t j = threadIdx.x; j < N; j += kThreads) {
            T xh = (xr[j] - m) * k, g = w ? gr[j] * w[j] : gr[j];
            dxr[j] = k * (g - am - xh * cm);
        }
    }
}

/* d weight and d bias (either may be NULL), a thread per column summing down the M rows */
template <class T>
__global__ void ln_backward_cols(int64_t M, int64_t N, const T *dy, const T *x, const T *mean, const T *rstd, T *dw,
                                 T *db) {
    for (int64_t j = (int64_t)blockIdx.x * kThreads + threadIdx.x; j < N; j += (int64_t)gridDim.x * kThreads) {
        double sw = 0, sb = 0;
        for (int64_t r = 0; r < M; r++) {
            T xh = (x[r * N + j] - mean[r]) * rstd[r];
            sw += (double)dy[r * N + j] * (double)xh;
            sb += (double)dy[r * N + j];
        }
        if (dw) dw[j] = (T)sw;
        if (db) db[j] = (T)sb;
    }
}

/* element e of channel c's N * P: input viewed as (N, C, P) */
__device__ __forceinline__ int64_t at(int64_t e, int64_t c, int64_t C, int64_t P) {
    return ((e / P) * C + c) * P + e % P;
}

template <class T>
__global__ void __launch_bounds__(kThreads) bn_forward(int64_t N, int64_t C, int64_t P, double eps, const T *x,
                                                        const T *w, const T *b, T *y, T *mean, T *invstd) {
    __shared__ double smem[kThreads / 32];
    int64_t n = N * P;
    double cnt = (double)n;
    for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
        double s = 0, q = 0;
        for (int64_t e = threadIdx.x; e < n; e += kThreads) s += (double)x[at(e, c, C, P)];
        T m = (T)(block_sum(s, smem) / cnt);
        for (int64_t e = threadIdx.x; e < n; e += kThreads) {
            double d = (double)x[at(e, c, C, P)] - (double)m;
            q += d * d;
        }
        double rs = 1 / sqrt(block_sum(q, smem) / cnt + eps);
        T k = (T)rs;
        T sc = w ? (T)(rs * (double)w[c]) : k;
        T sh = (b ? b[c] : (T)0) - m * sc;
        for (int64_t e = threadIdx.x; e < n; e += kThreads) {
            int64_t i = at(e, c, C, P);
            y[i] = x[i] * sc + sh;
        }
        if (threadIdx.x == 0) {
            mean[c] = m;
            invstd[c] = k;
        }
    }
}

template <class T>
__global__ void __launch_bounds__(kThreads) bn_backward(int64_t N, int64_t C, int64_t P, const T *dy, const T *x,
                                                         const T *mean, const T *invstd, const T *w, T *dx, T *dw,
                                                         T *db) {
    __shared__ double smem[kThreads / 32];
    int64_t n = N * P;
    double cnt = (double)n;
    for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
        T m = mean[c], k = invstd[c];
        double sg = 0, sgx = 0;
        for (int64_t e = threadIdx.x; e < n; e += kThreads) {
            int64_t i = at(e, c, C, P);
            sg += (double)dy[i];
            sgx += (double)dy[i] * ((double)x[i] - (double)m);
        }
        sg = block_sum(sg, smem);
        sgx = block_sum(sgx, smem);
        if (threadIdx.x == 0) {
            if (dw) dw[c] = (T)(sgx * (double)k);
            if (db) db[c] = (T)sg;
        }
        if (!dx) continue;
        double wk = (w ? (double)w[c] : 1) * (double)k;
        double bx = -wk * (double)k * (double)k * sgx / cnt;
        T a = (T)wk, bb = (T)bx, e0 = (T)(-wk * sg / cnt - bx * (double)m);
        for (int64_t e = threadIdx.x; e < n; e += kThreads) {
            int64_t i = at(e, c, C, P);
            dx[i] = a * dy[i] + bb * x[i] + e0;
        }
    }
}

template <class T>
int ln_launch(int64_t M, int64_t N, double eps, const void *x, const void *w, const void *b, void *y, void *mean,
              void *rstd) {
    if (M == 0) return 0;
    ln_forward<T><<<grid_for(M), kThreads>>>(M, N, eps, (const T *)x, (const T *)w, (const T *)b, (T *)y, (T *)mean,
                                            (T *)rstd);
    return (int)cudaGetLastError();
}

template <class T>
int ln_backward_launch(int64_t M, int64_t N, const void *dy, const void *x, const void *mean, const void *rstd,
                       const void *w, void *dx, void *dw, void *db) {
    if (dx && M && N)
        ln_backward_rows<T><<<grid_for(M), kThreads>>>(M, N, (const T *)dy, (const T *)x, (const T *)mean,
                                                      (const T *)rstd, (const T *)w, (T *)dx);
    if ((dw || db) && N)
        ln_backward_cols<T><<<grid_for((N + kThreads - 1) / kThreads), kThreads>>>(
            M, N, (const T *)dy, (const T *)x, (const T *)mean, (const T *)rstd, (T *)dw, (T *)db);
    return (int)cudaGetLastError();
}

template <class T>
int bn_launch(int64_t N, int64_t C, int64_t P, double eps, const void *x, const void *w, const void *b, void *y,
              void *mean, void *invstd) {
    if (C == 0) return 0;
    bn_forward<T><<<grid_for(C), kThreads>>>(N, C, P, eps, (const T *)x, (const T *)w, (const T *)b, (T *)y,
                                            (T *)mean, (T *)invstd);
    return (int)cudaGetLastError();
}

template <class T>
int bn_backward_launch(int64_t N, int64_t C, int64_t P, const void *dy, const void *x, const void *mean,
                       const void *invstd, const void *w, void *dx, void *dw, void *db) {
    if (C == 0) return 0;
    bn_backward<T><<<grid_for(C), kThreads>>>(N, C, P, (const T *)dy, (const T *)x, (const T *)mean,
                                             (const T *)invstd, (const T *)w, (T *)dx, (T *)dw, (T *)db);
    return (int)cudaGetLastError();
}

}  // namespace

extern "C" int lm_cuda_k_layer_norm(int dtype, int64_t M, int64_t N, double eps, const void *x, const void *w,
                                    const void *b, void *y, void *mean, void *rstd) {
    if (dtype == LM_FLOAT32) return ln_launch<float>(M, N, eps, x, w, b, y, mean, rstd);
    if (dtype == LM_FLOAT64) return ln_launch<double>(M, N, eps, x, w, b, y, mean, rstd);
    return (int)cudaErrorInvalidValue;
}

extern "C" int lm_cuda_k_layer_norm_backward(int dtype, int64_t M, int64_t N, const void *dy, const void *x,
                                             const void *mean, const void *rstd, const void *w, void *dx, void *dw,
                                             void *db) {
    if (dtype == LM_FLOAT32) return ln_backward_launch<float>(M, N, dy, x, mean, rstd, w, dx, dw, db);
    if (dtype == LM_FLOAT64) return ln_backward_launch<double>(M, N, dy, x, mean, rstd, w, dx, dw, db);
    return (int)cudaErrorInvalidValue;
}

extern "C" int lm_cuda_k_batch_norm(int dtype, int64_t N, int64_t C, int64_t P, double eps, const void *x,
                                    const void *w, const void *b, void *y, void *mean, void *invstd) {
    if (dtype == LM_FLOAT32) return bn_launch<float>(N, C, P, eps, x, w, b, y, mean, invstd);
    if (dtype == LM_FLOAT64) return bn_launch<double>(N, C, P, eps, x, w, b, y, mean, invstd);
    return (int)cudaErrorInvalidValue;
}

extern "C" int lm_cuda_k_batch_norm_backward(int dtype, int64_t N, int64_t C, int64_t P, const void *dy, const void *x,
                                             const void *mean, const void *invstd, const void *w, void *dx, void *dw,
                                             void *db) {
    if (dtype == LM_FLOAT32) return bn_backward_launch<float>(N, C, P, dy, x, mean, invstd, w, dx, dw, db);
    if (dtype == LM_FLOAT64) return bn_backward_launch<double>(N, C, P, dy, x, mean, invstd, w, dx, dw, db);
    return (int)cudaErrorInvalidValue;
}
