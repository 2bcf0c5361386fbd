/* Views between a complex tensor and its float parts: the same storage read as
 * the part dtype, strides doubled (complex64 is two float32s, real first). */
#include "loom.h"
#include "loom_ops.h"

/* self's parts as a float view (..., 2), or of one part (`part` 0 real, 1 imag) without the last dim */
static lm_tensor *parts(lm_tensor *self, int part) {
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    int n = self->ndim;
    for (int d = 0; d < n; d++) { shape[d] = self->shape[d]; strides[d] = self->strides[d] * 2; }
    int64_t offset = self->offset * 2 + (part > 0 ? 1 : 0);
    if (part < 0) {
        if (n >= LM_MAX_DIMS) { lm_set_error(LM_ERR_VALUE, "too many dimensions"); return NULL; }
        shape[n] = 2; strides[n] = 1; n++;
    }
    return lm_view_dtype(self, n, shape, strides, offset, lm_dtype_to_real[self->dtype]);
}

static int need_complex(const lm_tensor *self, const char *what) {
    if (lm_is_complex(self->dtype)) return 0;
    return lm_set_error(LM_ERR_RUNTIME, "%s is not implemented for tensors with non-complex dtypes.", what);
}

lm_tensor *lm_cpu_view_as_real(lm_tensor *self) {
    if (!lm_is_complex(self->dtype)) {
        lm_set_error(LM_ERR_RUNTIME, "view_as_real is only supported for complex tensors");
        return NULL;
    }
    return parts(self, -1);
}

lm_tensor *lm_cpu_real(lm_tensor *self) {
    if (!lm_is_complex(self->dtype)) {
        lm_retain(self);
        return self;
    }
    return parts(self, 0);
}

lm_tensor *lm_cpu_imag(lm_tensor *self) {
    return need_complex(self, "imag") ? NULL : parts(self, 1);
}

/* (..., 2) float32/float64 with a last stride of 1 and even strides elsewhere, seen as complex. */
lm_tensor *lm_cpu_view_as_complex(lm_tensor *self) {
    if (self->dtype != LM_FLOAT32 && self->dtype != LM_FLOAT64) {
        lm_set_error(LM_ERR_RUNTIME, "view_as_complex is only supported for float and double tensors, but got a "
                     "tensor of scalar type: %s", lm_dtype_name(self->dtype));
        return NULL;
    }
    if (self->ndim == 0 || self->shape[self->ndim - 1] != 2) {
        lm_set_error(LM_ERR_RUNTIME, "Tensor must have a last dimension of size 2");
        return NULL;
    }
    if (self->strides[self->ndim - 1] != 1) {
        lm_set_error(LM_ERR_RUNTIME, "Tensor must have a last dimension with stride 1");
        return NULL;
    }
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    int n = self->ndim - 1;
    for (int d = 0; d < n; d++) {
        if (self->strides[d] % 2) {
            lm_set_error(LM_ERR_RUNTIME, "Tensor must have a stride divisible by 2 for all but last dimension");
            return NULL;
        }
        shape[d] = self->shape[d];
        strides[d] = self->strides[d] / 2;
    }
    if (self->offset % 2) {
        lm_set_error(LM_ERR_RUNTIME, "Tensor must have a storage_offset divisible by 2");
        return NULL;
    }
    return lm_view_dtype(self, n, shape, strides, self->offset / 2, lm_dtype_to_complex[self->dtype]);
}
