/* cuBLAS, opened with dlopen at first use so the CUDA library needs only the
 * driver to load: from the toolkit, or the nvidia-cublas wheel (loom[cuda]). */
#ifndef LOOM_CUDA_BLAS_H
#define LOOM_CUDA_BLAS_H
#include <stddef.h>
#include <stdint.h>

#define LM_BLAS_ERROR_BASE 100000   /* error codes above it are cuBLAS statuses (or "not found") */

#ifdef __cplusplus
extern "C" {
#endif
int lm_blas_open(const char *path, char *msg, size_t cap);
void lm_blas_set_allow_tf32(int on);
const char *lm_blas_error_string(int err);
int lm_blas_gemm(int dtype, int transa, int transb, int64_t m, int64_t n, int64_t k,
                 const void *A, int64_t lda, int64_t stride_a, const void *B, int64_t ldb, int64_t stride_b,
                 void *C, int64_t ldc, int64_t stride_c, int64_t batch, double beta);
#ifdef __cplusplus
}
#endif
#endif
