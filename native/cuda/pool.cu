/* Hand-written CUDA kernels of avg_pool2d and adaptive_avg_pool2d and their backwards
 * (native/cpu/pool.c holds the arithmetic): a thread per output element forward; backward, a
 * thread per input element summing the windows that hold it in the CPU's (oh, ow) order, so no
 * two threads write one element. Signature: cuda_kernels.h. */
#include <cuda_runtime.h>
#include <math.h>
#include "cuda_kernels.h"
#include "dtype.h"

namespace {

constexpr int kThreads = 256;

struct AvgArgs {
    lm_cuda_pool_geom g;
    int adaptive, count_include_pad;
    int64_t divisor_override;   /* INT64_MIN: none */
};

/* output (oh, ow)'s window [h0, h1) x [w0, w1) of the input, clipped, and its divisor */
__device__ void window_of(const AvgArgs &A, int64_t oh, int64_t ow, int64_t *h0, int64_t *h1, int64_t *w0,
                          int64_t *w1, int64_t *div) {
    const lm_cuda_pool_geom &g = A.g;
    if (A.adaptive) {
        *h0 = oh * g.H / g.OH;
        *h1 = ((oh + 1) * g.H + g.OH - 1) / g.OH;
        *w0 = ow * g.W / g.OW;
        *w1 = ((ow + 1) * g.W + g.OW - 1) / g.OW;
        *div = (*h1 - *h0) * (*w1 - *w0);
        return;
    }
    int64_t a = oh * g.sh - g.ph, c = ow * g.sw - g.pw;
    int64_t b = a + g.kh < g.H + g.ph ? a + g.kh : g.H + g.ph;
    int64_t e = c + g.kw < g.W + g.pw ? c + g.kw : g.W + g.pw;
    int64_t padded = (b - a) * (e - c);
    *h0 = a < 0 ? 0 : a;
    *w0 = c < 0 ? 0 : c;
    *h1 = b > g.H ? g.H : b;
    *w1 = e > g.W ? g.W : e;
    *div = A.divisor_override != INT64_MIN ? A.divisor_override
           : A.count_include_pad          ? padded
                                          : (*h1 - *h0) * (*w1 - *w0);
}

/* the outputs along one axis whose windows hold input position h: [*lo, *hi] */
__device__ void outputs_holding(const AvgArgs &A, int64_t h, int64_t n, int64_t on, int64_t k, int64_t s, int64_t p,
                                int64_t *lo, int64_t *hi) {
    if (A.adaptive) {   /* floor(o n / on) <= h < ceil((o + 1) n / on) */
        *lo = h * on / n;
        *hi = ((h + 1) * on + n - 1) / n - 1;
    } else {            /* o s - p <= h < o s - p + k */
        int64_t m = h + p - k;
        *lo = m < 0 ? 0 : m / s + 1;
        *hi = (h + p) / s;
    }
    if (*hi > on - 1) *hi = on - 1;
}

template <class T>
__global__ void avg_forward(AvgArgs A, int64_t n, const T *x, T *out) {
    const lm_cuda_pool_geom &g = A.g;
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < n; e += (int64_t)gridDim.x * kThreads) {
        int64_t ow = e % g.OW, oh = e / g.OW % g.OH, pl = e / (g.OW * g.OH);
        int64_t h0, h1, w0, w1, div;
        window_of(A, oh, ow, &h0, &h1, &w0, &w1, &div);
        const T *xin = x + pl * g.H * g.W;
        T acc = 0;
        for (int64_t h = h0; h < h1; h++)
            for (int64_t w = w0; w < w1; w++) acc += xin[h * g.W + w];
        out[e] = div ? acc / (T)div : (T)NAN;
    }
}

template <class T>
__global__ void avg_backward(AvgArgs A, int64_t n, const T *gy, T *dx) {
    const lm_cuda_pool_geom &g = A.g;
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < n; e += (int64_t)gridDim.x * kThreads) {
        int64_t w = e % g.W, h = e / g.W % g.H, pl = e / (g.W * g.H);
        int64_t oh0, oh1, ow0, ow1;
        outputs_holding(A, h, g.H, g.OH, g.kh, g.sh, g.ph, &oh0, &oh1);
        outputs_holding(A, w, g.W, g.OW, g.kw, g.sw, g.pw, &ow0, &ow1);
        const T *gin = gy + pl * g.OH * g.OW;
        T acc = 0;
        for (int64_t oh = oh0; oh <= oh1; oh++)
            for (int64_t ow = ow0; ow <= ow1; ow++) {
                int64_t h0, h1, w0, w1, div;
                window_of(A, oh, ow, &h0, &h1, &w0, &w1, &div);
                acc += div ? gin[oh * g.OW + ow] / (T)div : (T)NAN;
            }
        dx[e] = acc;
    }
}

template <class T>
int avg_launch(const AvgArgs &A, int backward, const void *src, void *dst) {
    const lm_cuda_pool_geom &g = A.g;
    int64_t n = g.planes * (backward ? g.H * g.W : g.OH * g.OW);
    if (n == 0) return 0;
    int64_t blocks = (n + kThreads - 1) / kThreads;
    unsigned grid = (unsigned)(blocks < (1 << 20) ? blocks : (1 << 20));
    if (backward)
        avg_backward<T><<<grid, kThreads>>>(A, n, (const T *)src, (T *)dst);
    else
        avg_forward<T><<<grid, kThreads>>>(A, n, (const T *)src, (T *)dst);
    return (int)cudaGetLastError();
}

}  // namespace

extern "C" int lm_cuda_k_avg_pool(int dtype, const lm_cuda_pool_geom *G, int adaptive, int backward,
                                  int count_include_pad, int64_t divisor_override, const void *src, void *dst) {
    AvgArgs A = {*G, adaptive, count_include_pad, divisor_override};
    if (dtype == LM_FLOAT32) return avg_launch<float>(A, backward, src, dst);
    if (dtype == LM_FLOAT64) return avg_launch<double>(A, backward, src, dst);
    return (int)cudaErrorInvalidValue;
}
