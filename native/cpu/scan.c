/* cumsum: a running sum along one dim. Integral and bool inputs sum in int64
 * unless dtype= says otherwise; floats accumulate in double, as PyTorch's CPU
 * kernel does. */
#include "index_util.h"
#include "loom_ops.h"

lm_tensor *lm_cpu_cumsum(lm_tensor *self, int64_t dim, int dtype) {
    int d;
    if (lm_wrap_dim(dim, self->ndim, &d)) return NULL;
    int rd = dtype >= 0 ? dtype : lm_is_floating(self->dtype) ? self->dtype : LM_INT64;
    lm_tensor *x = lm_cast(self, rd);
    lm_tensor *out = x ? lm_empty(self->ndim, self->shape, rd, self->device) : NULL;
    if (!out) { lm_release(x); return NULL; }
    lm_nd S, O;
    lm_as_nd(x, &S);
    lm_as_nd(out, &O);
    int64_t n = S.shape[d], rshape[LM_MAX_DIMS], rows = 1, pos[LM_MAX_DIMS] = {0};
    memcpy(rshape, S.shape, sizeof rshape);
    rshape[d] = 1;
    for (int j = 0; j < S.nd; j++) rows *= rshape[j];
    bool fl = lm_is_floating(rd);
    void *gil = rows * n > LM_INDEX_GIL_WORK ? lm_gil_release() : NULL;
    LM_DISPATCH(rd, T, ,
        const T *src = (const T *)lm_bytes(x);
        T *dst = (T *)lm_bytes(out);
        for (int64_t r = 0; r < rows; r++, lm_next_pos(S.nd, rshape, pos)) {
            const T *in = src + lm_pos_offset(S.nd, pos, S.strides);
            T *o = dst + lm_pos_offset(O.nd, pos, O.strides);
            double accd = 0;
            int64_t acci = 0;
            for (int64_t i = 0; i < n; i++) {
                if (fl) { accd += (double)in[i * S.strides[d]]; o[i * O.strides[d]] = (T)accd; }
                else { acci += (int64_t)in[i * S.strides[d]]; o[i * O.strides[d]] = (T)acci; }
            }
        })
    lm_gil_reacquire(gil);
    lm_release(x);
    return out;
}
