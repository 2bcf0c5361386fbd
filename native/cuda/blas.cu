/* cuBLAS through dlopen: the few entry points loom calls, declared here with
 * the library's C ABI (handles are opaque pointers, enums are ints). */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <mutex>
#include <stdio.h>
#include "blas.h"
#include "cuda_abi.h"

namespace {

typedef void *Handle;
enum { OP_N = 0, OP_T = 1, DEFAULT_MATH = 0, TF32_TENSOR_OP_MATH = 3 };
/* library_types.h's cudaDataType and cublas_api.h's compute type and algorithm */
enum { R_16F = 2, R_16BF = 14, COMPUTE_32F = 68, GEMM_DEFAULT = -1 };

int (*create)(Handle *);
int (*set_math_mode)(Handle, int);
int (*sgemm_batched)(Handle, int, int, int, int, int, const float *, const float *, int, long long,
                     const float *, int, long long, const float *, float *, int, long long, int);
int (*dgemm_batched)(Handle, int, int, int, int, int, const double *, const double *, int, long long,
                     const double *, int, long long, const double *, double *, int, long long, int);
int (*gemm_ex_batched)(Handle, int, int, int, int, int, const void *, const void *, int, int, long long,
                       const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int);
Handle handle;
int allow_tf32 = 0, mode_set = -1;
std::mutex mu;

const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", "/usr/local/cuda/lib64/libcublas.so.13",
                             "/usr/local/cuda/lib64/libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so"};

}  // namespace

extern "C" {

int lm_blas_open(const char *path, char *msg, size_t cap) {
    std::lock_guard<std::mutex> g(mu);
    if (handle) return 0;
    void *lib = nullptr;
    if (path) lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; !lib && i < sizeof names / sizeof *names; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(msg, cap, "cuBLAS was not found (%s): install the toolkit's libcublas or pip install 'loom[cuda]' "
                 "(nvidia-cublas)", path ? path : "libcublas.so.13");
        return -1;
    }
    create = (int (*)(Handle *))dlsym(lib, "cublasCreate_v2");
    set_math_mode = (int (*)(Handle, int))dlsym(lib, "cublasSetMathMode");
    *(void **)&sgemm_batched = dlsym(lib, "cublasSgemmStridedBatched");
    *(void **)&dgemm_batched = dlsym(lib, "cublasDgemmStridedBatched");
    *(void **)&gemm_ex_batched = dlsym(lib, "cublasGemmStridedBatchedEx");
    if (!create || !set_math_mode || !sgemm_batched || !dgemm_batched || !gemm_ex_batched) {
        snprintf(msg, cap, "the cuBLAS library found lacks cublasCreate_v2, cublasSetMathMode, "
                 "cublas[SD]gemmStridedBatched or cublasGemmStridedBatchedEx");
        return -1;
    }
    Handle h;
    int st = create(&h);
    if (st) {
        snprintf(msg, cap, "cublasCreate failed with status %d", st);
        return -1;
    }
    handle = h;
    return 0;
}

void lm_blas_set_allow_tf32(int on) { allow_tf32 = on; }

const char *lm_blas_error_string(int err) {
    static char buf[64];
    snprintf(buf, sizeof buf, "cuBLAS error status %d", err - LM_BLAS_ERROR_BASE);
    return buf;
}

int lm_blas_gemm(int dtype, int transa, int transb, int64_t m, int64_t n, int64_t k,
                 const void *A, int64_t lda, int64_t stride_a, const void *B, int64_t ldb, int64_t stride_b,
                 void *C, int64_t ldc, int64_t stride_c, int64_t batch, double beta) {
    if (!handle) return LM_BLAS_ERROR_BASE + 1;   /* NOT_INITIALIZED */
    int st;
    if (dtype == LM_FLOAT32) {
        if (mode_set != allow_tf32) {
            set_math_mode(handle, allow_tf32 ? TF32_TENSOR_OP_MATH : DEFAULT_MATH);
            mode_set = allow_tf32;
        }
        float one = 1.0f, b = (float)beta;
        st = sgemm_batched(handle, transa ? OP_T : OP_N, transb ? OP_T : OP_N, (int)m, (int)n, (int)k, &one,
                           (const float *)A, (int)lda, stride_a, (const float *)B, (int)ldb, stride_b, &b,
                           (float *)C, (int)ldc, stride_c, (int)batch);
    } else if (dtype == LM_FLOAT64) {
        double one = 1.0;
        st = dgemm_batched(handle, transa ? OP_T : OP_N, transb ? OP_T : OP_N, (int)m, (int)n, (int)k, &one,
                           (const double *)A, (int)lda, stride_a, (const double *)B, (int)ldb, stride_b, &beta,
                           (double *)C, (int)ldc, stride_c, (int)batch);
    } else if (dtype == LM_FLOAT16 || dtype == LM_BFLOAT16) {
        /* 16-bit operands and result, float32 accumulation on the tensor cores: PyTorch's
         * default for half and bfloat16 products */
        int t = dtype == LM_FLOAT16 ? R_16F : R_16BF;
        float one = 1.0f, b = (float)beta;
        st = gemm_ex_batched(handle, transa ? OP_T : OP_N, transb ? OP_T : OP_N, (int)m, (int)n, (int)k, &one,
                             A, t, (int)lda, stride_a, B, t, (int)ldb, stride_b, &b, C, t, (int)ldc, stride_c,
                             (int)batch, COMPUTE_32F, GEMM_DEFAULT);
    } else {
        return LM_BLAS_ERROR_BASE + 7;   /* INVALID_VALUE */
    }
    return st ? LM_BLAS_ERROR_BASE + st : 0;
}

}  /* extern "C" */
