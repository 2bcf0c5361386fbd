/* matmul / mm / bmm: batch broadcasting around lm_gemm. */
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "iter.h"
#include "gemm.h"

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

static bool unit_stride(const lm_tensor *t) {
    return t->strides[t->ndim - 1] == 1 || t->strides[t->ndim - 2] == 1 || lm_numel(t) <= 1;
}

/* The batch dims (broadcast to bshape) as one run of `count` products whose operands lie
 * *sa / *sb elements apart, when both step through every dim evenly (contiguous batch dims,
 * broadcast ones, transposed matrices inside them): false when they do not. */
static bool one_run(int nbatch, const int64_t *bshape, const int64_t *da, const int64_t *db, int64_t *count,
                    int64_t *sa, int64_t *sb) {
    int64_t n = 1, next_a = -1, next_b = -1;
    *sa = *sb = 0;
    for (int d = nbatch - 1; d >= 0; d--) {
        if (bshape[d] == 1) continue;
        if (next_a < 0) { *sa = da[d]; *sb = db[d]; }
        else if (da[d] != next_a || db[d] != next_b) return false;
        next_a = da[d] * bshape[d];
        next_b = db[d] * bshape[d];
        n *= bshape[d];
    }
    *count = n;
    return true;
}

/* On CUDA: one strided-batched cuBLAS call when the batch dims make one even run (attention's
 * [batch, heads, M, K] products among them), else one call per product; operands cuBLAS cannot
 * read are made contiguous. */
static int cuda_batched(lm_tensor *a, lm_tensor *b, lm_tensor *out, int nbatch, const int64_t *bshape,
                        int64_t batches) {
    int na = a->ndim, nb = b->ndim, err = 0;
    int64_t M = a->shape[na - 2], K = a->shape[na - 1], N = b->shape[nb - 1], item = (int64_t)lm_itemsize(a->dtype);
    lm_tensor *ca = unit_stride(a) ? (lm_retain(a), a) : lm_contiguous(a);
    lm_tensor *cb = unit_stride(b) ? (lm_retain(b), b) : lm_contiguous(b);
    if (!ca || !cb) { lm_release(ca); lm_release(cb); return -1; }
    int64_t da[LM_MAX_DIMS], db[LM_MAX_DIMS];   /* each batch dim's stride in a and b (0: broadcast) */
    for (int d = 0; d < nbatch; d++) {
        int ia = d - (nbatch - (na - 2)), ib = d - (nbatch - (nb - 2));
        da[d] = ia >= 0 && ca->shape[ia] != 1 ? ca->strides[ia] : 0;
        db[d] = ib >= 0 && cb->shape[ib] != 1 ? cb->strides[ib] : 0;
    }
    lm_mat ma = {lm_bytes(ca), ca->strides[na - 2], ca->strides[na - 1]};
    lm_mat mb = {lm_bytes(cb), cb->strides[nb - 2], cb->strides[nb - 1]};
    int64_t count, sa, sb;
    if (one_run(nbatch, bshape, da, db, &count, &sa, &sb)) {
        err = lm_cuda_gemm(a->dtype, M, N, K, ma, mb, lm_bytes(out), N, false, count, sa, sb, M * N);
    } else {
        int64_t idx[LM_MAX_DIMS] = {0};
        for (int64_t bi = 0; bi < batches && !err; bi++) {
            int64_t offa = 0, offb = 0;
            for (int d = 0; d < nbatch; d++) {
                offa += idx[d] * da[d];
                offb += idx[d] * db[d];
            }
            lm_mat pa = {ma.p + offa * item, ma.rs, ma.cs}, pb = {mb.p + offb * item, mb.rs, mb.cs};
            err = lm_cuda_gemm(a->dtype, M, N, K, pa, pb, lm_bytes(out) + bi * M * N * item, N, false, 1, 0, 0, 0);
            for (int d = nbatch - 1; d >= 0; d--) { if (++idx[d] < bshape[d]) break; idx[d] = 0; }
        }
    }
    lm_release(ca);
    lm_release(cb);
    return err;
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
    if (a->device == LM_CUDA) {
        if (cuda_batched(a, b, out, nbatch, bshape, batches)) { lm_release(out); return NULL; }
        return out;
    }
    /* float16/bfloat16: each product in float32 (lm_gemm_half converts the operands as it packs them),
     * rounded once into out */
    float *acc = lm_is_half(a->dtype) ? lm_half_scratch(M * N) : NULL;
    if (lm_is_half(a->dtype) && !acc) { lm_release(out); return NULL; }
    int64_t idx[LM_MAX_DIMS] = {0};
    int err = 0;
    void *gil = lm_should_parallelize(batches * M * N * K / 16) ? lm_gil_release() : NULL;
    for (int64_t bi = 0; bi < batches && !err; bi++) {
        int64_t offa = 0, offb = 0;
        for (int d = 0; d < nbatch; d++) {
            int da = d - (nbatch - (na - 2)), db = d - (nbatch - (nb - 2));
            if (da >= 0 && a->shape[da] != 1) offa += idx[d] * a->strides[da];
            if (db >= 0 && b->shape[db] != 1) offb += idx[d] * b->strides[db];
        }
        lm_mat ma = {lm_bytes(a) + offa * item, a->strides[na - 2], a->strides[na - 1]};
        lm_mat mb = {lm_bytes(b) + offb * item, b->strides[nb - 2], b->strides[nb - 1]};
        char *o = lm_bytes(out) + bi * M * N * item;
        if (acc && !(err = lm_gemm_half(a->dtype, M, N, K, ma, mb, acc, N, false))) lm_half_round_into(a->dtype, acc, o, M * N);
        else if (!acc) lm_gemm(a->dtype, M, N, K, ma, mb, o, N, false);
        for (int d = nbatch - 1; d >= 0; d--) { if (++idx[d] < bshape[d]) break; idx[d] = 0; }
    }
    lm_gil_reacquire(gil);
    free(acc);
    if (err) { lm_release(out); return NULL; }
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
