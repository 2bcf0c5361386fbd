/* The hand-written CUDA kernel of argmax/argmin and max.dim/min.dim (native/cpu/index_reduce.c):
 * a thread per output walks its line as the CPU's loop does, so ties go to the first and NaN
 * wins. Signature: cuda_kernels.h. */
#include <cuda_runtime.h>
#include "cuda_abi.h"
#include "cuda_kernels.h"
#include "dtype.h"

namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void argreduce_kernel(lm_cuda_argreduce_geom G, int is_max, const T *x, T *vals, int64_t *idx) {
    for (int64_t o = (int64_t)blockIdx.x * kThreads + threadIdx.x; o < G.outer; o += (int64_t)gridDim.x * kThreads) {
        int64_t rest = o, off = 0;
        for (int k = G.on - 1; k >= 0; k--) {
            off += rest % G.oshape[k] * G.ostr[k];
            rest /= G.oshape[k];
        }
        const T *p = x + off;
        T best = p[0];
        int64_t bi = 0;
        for (int64_t r = 1; r < G.R && best == best; r++) {
            T v = p[r * G.rs];
            if (v != v || (is_max ? v > best : v < best)) {
                best = v;
                bi = r;
            }
        }
        idx[o] = bi;
        if (vals) vals[o] = best;
    }
}

template <class T>
int argreduce_launch(const lm_cuda_argreduce_geom *G, int is_max, const void *x, void *vals, int64_t *idx) {
    if (G->outer == 0) return 0;
    int64_t blocks = (G->outer + kThreads - 1) / kThreads;
    argreduce_kernel<T><<<(unsigned)(blocks < (1 << 20) ? blocks : (1 << 20)), kThreads>>>(*G, is_max, (const T *)x,
                                                                                          (T *)vals, idx);
    return (int)cudaGetLastError();
}

}  // namespace

extern "C" int lm_cuda_k_argreduce(int dtype, const lm_cuda_argreduce_geom *G, int is_max, const void *x, void *vals,
                                   int64_t *idx) {
    switch (dtype) {
#define X(E, T, name) \
    case E: return argreduce_launch<T>(G, is_max, x, vals, idx);
        LM_FOR_EACH_DTYPE(X)
#undef X
    default: return (int)cudaErrorInvalidValue;
    }
}
