/* Random numbers on the device from Philox4x32-10, a counter-based generator:
 * element i of a draw uses the 128-bit counter (offset + i * words) / 4 under
 * the key `seed`, so values depend on (seed, offset, i) alone, never on how
 * the launch is shaped. Signature: cuda_kernels.h (lm_cuda_random_fn). */
#include <cuda_runtime.h>
#include <math.h>
#include "cuda_kernels.h"
#include "dtype.h"

namespace {

constexpr int kThreads = 256;

struct U4 { uint32_t x, y, z, w; };

__device__ __forceinline__ U4 philox(uint64_t counter, uint64_t seed) {
    uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
#pragma unroll
    for (int r = 0; r < 10; r++) {
        uint32_t lo0 = 0xD2511F53u * c0, hi0 = __umulhi(0xD2511F53u, c0);
        uint32_t lo1 = 0xCD9E8D57u * c2, hi1 = __umulhi(0xCD9E8D57u, c2);
        uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
        c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return U4{c0, c1, c2, c3};
}

__device__ __forceinline__ float u01f(uint32_t w) { return (float)(w >> 8) * 0x1.0p-24f; }
__device__ __forceinline__ double u01d(uint32_t a, uint32_t b) {
    return (double)((((uint64_t)a << 32) | b) >> 11) * 0x1.0p-53;
}

/* float32 (1 word per element): 4 elements per counter */
__global__ void draw_f32(float *out, int64_t n, uint64_t seed, uint64_t base, int kind, float a, float b) {
    int64_t t = (int64_t)blockIdx.x * kThreads + threadIdx.x, i0 = t * 4;
    if (i0 >= n) return;
    U4 r = philox(base + (uint64_t)t, seed);
    float u[4] = {u01f(r.x), u01f(r.y), u01f(r.z), u01f(r.w)}, v[4];
    if (kind == 0) {
        for (int j = 0; j < 4; j++) v[j] = a + (b - a) * u[j];
    } else {   /* Box-Muller on two pairs */
        for (int j = 0; j < 4; j += 2) {
            float rad = sqrtf(-2.0f * logf(1.0f - u[j])), th = 6.28318530717958647692f * u[j + 1];
            v[j] = a + b * rad * cosf(th);
            v[j + 1] = a + b * rad * sinf(th);
        }
    }
    for (int j = 0; j < 4 && i0 + j < n; j++) out[i0 + j] = v[j];
}

/* 2 words per element (float64, integers): 2 elements per counter */
template <class T>
__global__ void draw_wide(T *out, int64_t n, uint64_t seed, uint64_t base, int kind, double a, double b) {
    int64_t t = (int64_t)blockIdx.x * kThreads + threadIdx.x, i0 = t * 2;
    if (i0 >= n) return;
    U4 r = philox(base + (uint64_t)t, seed);
    T v[2];
    if (kind == 2) {   /* integers in [a, a + b): 64 random bits modulo the range */
        uint64_t range = (uint64_t)b, w0 = ((uint64_t)r.x << 32) | r.y, w1 = ((uint64_t)r.z << 32) | r.w;
        v[0] = (T)((int64_t)a + (int64_t)(w0 % range));
        v[1] = (T)((int64_t)a + (int64_t)(w1 % range));
    } else {
        double u0 = u01d(r.x, r.y), u1 = u01d(r.z, r.w);
        if (kind == 0) {
            v[0] = (T)(a + (b - a) * u0);
            v[1] = (T)(a + (b - a) * u1);
        } else {
            double rad = sqrt(-2.0 * log(1.0 - u0)), th = 6.283185307179586476925 * u1;
            v[0] = (T)(a + b * rad * cos(th));
            v[1] = (T)(a + b * rad * sin(th));
        }
    }
    for (int j = 0; j < 2 && i0 + j < n; j++) out[i0 + j] = v[j];
}

template <class T>
int wide(void *out, int64_t n, uint64_t seed, uint64_t base, int kind, double a, double b) {
    int64_t threads = (n + 1) / 2;
    draw_wide<T><<<(unsigned)((threads + kThreads - 1) / kThreads), kThreads>>>((T *)out, n, seed, base, kind, a, b);
    return (int)cudaGetLastError();
}

}  // namespace

/* offset counts counters (4 words); the host advances it by the counters a draw used */
extern "C" int lm_cuda_k_random(int kind, int dtype, void *out, int64_t n, uint64_t seed, uint64_t offset, double a,
                                double b) {
    if (n <= 0) return 0;
    if (dtype == LM_FLOAT32 && kind != 2) {
        int64_t threads = (n + 3) / 4;
        draw_f32<<<(unsigned)((threads + kThreads - 1) / kThreads), kThreads>>>((float *)out, n, seed, offset, kind,
                                                                              (float)a, (float)b);
        return (int)cudaGetLastError();
    }
#define LM_WIDE_CASE(E, C, N) case E: return wide<C>(out, n, seed, offset, kind, a, b);
    switch (dtype) {
        LM_FOR_EACH_DTYPE(LM_WIDE_CASE)
        LM_FOR_EACH_BAREBONES(LM_WIDE_CASE)   /* randint's uint16/32/64 */
        default: return (int)cudaErrorInvalidValue;
    }
#undef LM_WIDE_CASE
}
