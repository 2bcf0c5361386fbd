/* matmul / mm / bmm. Float types go to OpenBLAS's gemm, reading transposed
 * operands in place; other dtypes use a plain i-k-j loop. */
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "iter.h"

#ifdef LM_HAVE_BLAS
enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };
void scipy_cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                       const float *b, int ldb, float beta, float *c, int ldc);
void scipy_cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                       const double *b, int ldb, double beta, double *c, int ldc);

/* Can gemm read this (rows x cols, strides rs/cs) in place? Size-1 dims have free strides. */
static bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int *trans, int64_t *ld) {
    int64_t r1 = rows > 1 ? rows : 1, c1 = cols > 1 ? cols : 1;
    int64_t rsn = rows == 1 ? c1 : rs, csn = cols == 1 ? 1 : cs;
    if (csn == 1 && rsn >= c1) { *trans = NO_TRANS; *ld = rsn; return true; }
    int64_t rst = rows == 1 ? 1 : rs, cst = cols == 1 ? r1 : cs;
    if (rst == 1 && cst >= r1) { *trans = TRANS; *ld = cst; return true; }
    return false;
}
#endif

typedef struct { char *p; int64_t rs, cs; } mat;   /* strides in elements */

static void gemm_loop(int dtype, int64_t M, int64_t N, int64_t K, mat a, mat b, char *c) {
    LM_DISPATCH(dtype, T, ,
        T *C = (T *)c;
        for (int64_t i = 0; i < M * N; i++) C[i] = 0;
        for (int64_t i = 0; i < M; i++)
            for (int64_t k = 0; k < K; k++) {
                T av = ((T *)a.p)[i * a.rs + k * a.cs];
                const T *brow = (T *)b.p + k * b.rs;
                T *crow = C + i * N;
                if (dtype == LM_BOOL) { if (av) for (int64_t j = 0; j < N; j++) crow[j] = crow[j] || brow[j * b.cs]; }
                else for (int64_t j = 0; j < N; j++) crow[j] += av * brow[j * b.cs];
            })
}

/* C (contiguous M x N) = A (M x K) @ B (K x N) */
static void gemm(int dtype, int64_t M, int64_t N, int64_t K, mat a, mat b, char *c) {
#ifdef LM_HAVE_BLAS
    int ta, tb;
    int64_t lda, ldb;
    if ((dtype == LM_FLOAT32 || dtype == LM_FLOAT64) && K > 0 && M > 0 && N > 0 &&
        blas_layout(M, K, a.rs, a.cs, &ta, &lda) && blas_layout(K, N, b.rs, b.cs, &tb, &ldb)) {
        if (dtype == LM_FLOAT32)
            scipy_cblas_sgemm(ROW_MAJOR, ta, tb, (int)M, (int)N, (int)K, 1.0f, (float *)a.p, (int)lda,
                              (float *)b.p, (int)ldb, 0.0f, (float *)c, (int)N);
        else
            scipy_cblas_dgemm(ROW_MAJOR, ta, tb, (int)M, (int)N, (int)K, 1.0, (double *)a.p, (int)lda,
                              (double *)b.p, (int)ldb, 0.0, (double *)c, (int)N);
        return;
    }
#endif
    gemm_loop(dtype, M, N, K, a, b, c);
}

static int check_pair(const lm_tensor *a, const lm_tensor *b) {
    if (a->dtype != b->dtype)
        return lm_set_error(LM_ERR_TYPE, "expected both operands to have the same dtype, but got: %s != %s",
                            lm_dtype_name(a->dtype), lm_dtype_name(b->dtype));
    return 0;
}

static int too_big(int64_t x) {
    return x >= ((int64_t)1 << 31) ? lm_set_error(LM_ERR_VALUE, "matrix dimension %lld is too large for gemm "
                                                  "(must be < 2^31)", (long long)x) : 0;
}

/* The one batched product behind matmul, mm and bmm. a: [..., M, K], b: [..., K, N]
 * (already at least 2-D); batch dims broadcast. */
static lm_tensor *batched(lm_tensor *a, lm_tensor *b) {
    if (check_pair(a, b)) return NULL;
    int na = a->ndim, nb = b->ndim;
    int64_t M = a->shape[na - 2], K = a->shape[na - 1], K2 = b->shape[nb - 2], N = b->shape[nb - 1];
    if (K != K2) {
        lm_set_error(LM_ERR_VALUE, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)M, (long long)K, (long long)K2, (long long)N);
        return NULL;
    }
    if (too_big(M) || too_big(N) || too_big(K)) return NULL;
    int nbatch;
    int64_t bshape[LM_MAX_DIMS], oshape[LM_MAX_DIMS];
    if (lm_broadcast_shapes(na - 2, a->shape, nb - 2, b->shape, &nbatch, bshape)) return NULL;
    memcpy(oshape, bshape, sizeof(int64_t) * (size_t)nbatch);
    oshape[nbatch] = M;
    oshape[nbatch + 1] = N;
    lm_tensor *out = lm_empty(nbatch + 2, oshape, a->dtype, a->device);
    if (!out) return NULL;
    int64_t batches = 1, item = (int64_t)lm_itemsize(a->dtype);
    for (int d = 0; d < nbatch; d++) batches *= bshape[d];
    int64_t idx[LM_MAX_DIMS] = {0};
    void *gil = lm_should_parallelize(batches * M * N * K / 16) ? lm_gil_release() : NULL;
    for (int64_t bi = 0; bi < batches; bi++) {
        int64_t offa = 0, offb = 0;
        for (int d = 0; d < nbatch; d++) {
            int da = d - (nbatch - (na - 2)), db = d - (nbatch - (nb - 2));
            if (da >= 0 && a->shape[da] != 1) offa += idx[d] * a->strides[da];
            if (db >= 0 && b->shape[db] != 1) offb += idx[d] * b->strides[db];
        }
        mat ma = {lm_bytes(a) + offa * item, a->strides[na - 2], a->strides[na - 1]};
        mat mb = {lm_bytes(b) + offb * item, b->strides[nb - 2], b->strides[nb - 1]};
        gemm(a->dtype, M, N, K, ma, mb, lm_bytes(out) + bi * M * N * item);
        for (int d = nbatch - 1; d >= 0; d--) { if (++idx[d] < bshape[d]) break; idx[d] = 0; }
    }
    lm_gil_reacquire(gil);
    return out;
}

lm_tensor *lm_cpu_mm(lm_tensor *self, lm_tensor *mat2) {
    if (self->ndim != 2) { lm_set_error(LM_ERR_VALUE, "self must be a matrix (got %dD)", self->ndim); return NULL; }
    if (mat2->ndim != 2) { lm_set_error(LM_ERR_VALUE, "mat2 must be a matrix (got %dD)", mat2->ndim); return NULL; }
    return batched(self, mat2);
}

lm_tensor *lm_cpu_bmm(lm_tensor *self, lm_tensor *mat2) {
    if (self->ndim != 3 || mat2->ndim != 3) {
        lm_set_error(LM_ERR_VALUE, "batch1 and batch2 must be 3D tensors (got %dD and %dD)", self->ndim, mat2->ndim);
        return NULL;
    }
    if (self->shape[0] != mat2->shape[0]) {
        lm_set_error(LM_ERR_VALUE, "batch1 and batch2 must have the same batch size (%lld and %lld)",
                     (long long)self->shape[0], (long long)mat2->shape[0]);
        return NULL;
    }
    return batched(self, mat2);
}

/* NumPy's matmul: 1-D operands become a row (left) or column (right) matrix
 * for the product, and that dim is dropped from the result. */
lm_tensor *lm_cpu_matmul(lm_tensor *self, lm_tensor *other) {
    if (self->ndim == 0 || other->ndim == 0) {
        lm_set_error(LM_ERR_VALUE, "both arguments to matmul need to be at least 1D, but they are %dD and %dD",
                     self->ndim, other->ndim);
        return NULL;
    }
    lm_tensor *a = self, *b = other;
    if (self->ndim == 1) {
        int64_t sh[2] = {1, self->shape[0]}, st[2] = {self->shape[0], self->strides[0]};
        a = lm_view(self, 2, sh, st, self->offset);
    }
    if (other->ndim == 1) {
        int64_t sh[2] = {other->shape[0], 1}, st[2] = {other->strides[0], 1};
        b = lm_view(other, 2, sh, st, other->offset);
    }
    lm_tensor *r = a && b ? batched(a, b) : NULL;
    if (a != self) lm_release(a);
    if (b != other) lm_release(b);
    if (!r || (self->ndim > 1 && other->ndim > 1)) return r;
    int n = r->ndim;   /* drop the dims that came from 1-D operands */
    int64_t sh[LM_MAX_DIMS], st[LM_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < n; d++) {
        if (self->ndim == 1 && d == n - 2) continue;
        if (other->ndim == 1 && d == n - 1) continue;
        sh[k] = r->shape[d];
        st[k++] = r->strides[d];
    }
    lm_tensor *v = lm_view(r, k, sh, st, r->offset);
    lm_release(r);
    return v;
}
