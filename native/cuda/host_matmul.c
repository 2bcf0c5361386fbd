/* The matrix product on CUDA memory: cuBLAS (opened at first use) on row-major
 * operands, read as the column-major transposes cuBLAS expects. */
#include <stdlib.h>
#include "cuda_host.h"
#include "gemm.h"

static bool blas_ready;

/* a row-major R x C operand as cuBLAS sees it, or false when its strides fit neither op */
static bool layout(int64_t R, int64_t C, int64_t rs, int64_t cs, int *trans, int64_t *ld) {
    int64_t needn = C > 1 ? C : 1, needt = R > 1 ? R : 1;
    if (cs == 1 || C == 1) {   /* the column-major C x R matrix X^T */
        *trans = 0;
        *ld = R == 1 ? needn : rs;
        if (*ld >= needn) return true;
    }
    if (rs == 1 || R == 1) {   /* X itself, column-major R x C: cuBLAS transposes it */
        *trans = 1;
        *ld = C == 1 ? needt : cs;
        if (*ld >= needt) return true;
    }
    return false;
}

int lm_cuda_gemm(int dtype, int64_t M, int64_t N, int64_t K, lm_mat a, lm_mat b, char *c, int64_t ldc,
                 bool accumulate, int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c) {
    const lm_cuda_backend *B = lm_cuda_backend_loaded();
    if (!B) return lm_set_error(LM_ERR_RUNTIME, "CUDA is not initialized");
    if (dtype != LM_FLOAT32 && dtype != LM_FLOAT64 && dtype != LM_FLOAT16 && dtype != LM_BFLOAT16)
        return lm_set_error(LM_ERR_NOTIMPL, "\"addmm_cuda\" not implemented for '%s'", lm_dtype_name(dtype));
    if (!blas_ready) {
        if (lm_cuda_blas_open(getenv("LOOM_CUBLAS"))) return -1;
        blas_ready = true;
    }
    int ta, tb;
    int64_t lda, ldb;
    if (!layout(M, K, a.rs, a.cs, &ta, &lda) || !layout(K, N, b.rs, b.cs, &tb, &ldb))
        return lm_set_error(LM_ERR_RUNTIME, "matmul: an operand's strides fit no cuBLAS layout (make it contiguous)");
    if (M == 0 || N == 0 || batch == 0) return 0;
    int64_t lim = (int64_t)1 << 31;
    if (M >= lim || N >= lim || K >= lim || lda >= lim || ldb >= lim || ldc >= lim || batch >= lim)
        return lm_set_error(LM_ERR_VALUE, "matmul: a dimension of %lld x %lld x %lld (batch %lld) is too large for "
                            "cuBLAS (must be < 2^31)", (long long)M, (long long)N, (long long)K, (long long)batch);
    /* C^T (N x M) = B^T (N x K) A^T (K x M), all column-major */
    return lm_cuda_check(B->gemm(dtype, tb, ta, N, M, K, b.p, ldb, stride_b, a.p, lda, stride_a, c, ldc, stride_c,
                                 batch, accumulate ? 1.0 : 0.0), "matmul (cuBLAS)");
}
