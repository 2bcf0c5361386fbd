/* Views (new shape/strides over the same storage) and the copies that
 * reshape/contiguous/clone fall back to. */
#include <string.h>
#include "loom.h"
#include "loom_ops.h"

static lm_tensor *restride(lm_tensor *t, int ndim, const int64_t *shape, const int64_t *strides) {
    return lm_view(t, ndim, shape, strides, t->offset);
}

/* Resolve one -1 and check the element count, as PyTorch's infer_size. */
static int infer_size(const lm_tensor *t, const int64_t *size, int64_t n, int64_t *out) {
    if (n > LM_MAX_DIMS) return lm_set_error(LM_ERR_VALUE, "too many dimensions (%lld)", (long long)n);
    int64_t numel = lm_numel(t), known = 1;
    int infer = -1;
    for (int i = 0; i < n; i++) {
        if (size[i] == -1) {
            if (infer >= 0) return lm_set_error(LM_ERR_VALUE, "only one dimension can be inferred");
            infer = i;
        } else if (size[i] < 0) {
            return lm_set_error(LM_ERR_VALUE, "invalid shape dimension %lld", (long long)size[i]);
        } else {
            known *= size[i];
        }
        out[i] = size[i];
    }
    if (infer >= 0) {
        if (known == 0 || numel % known != 0) goto bad;
        out[infer] = numel / known;
    } else if (known != numel) {
        goto bad;
    }
    return 0;
bad: {
        char s[256];
        lm_format_shape(s, sizeof s, (int)n, size);
        return lm_set_error(LM_ERR_VALUE, "shape '%s' is invalid for input of size %lld", s, (long long)numel);
    }
}

/* Strides for viewing t at `shape` without copying, or false (PyTorch's computeStride). */
static bool view_strides(const lm_tensor *t, int n, const int64_t *shape, int64_t *out) {
    if (lm_numel(t) == 0 || t->ndim == 0) { lm_contiguous_strides(n, shape, out); return true; }
    int view_d = n - 1;
    int64_t chunk_base_stride = t->strides[t->ndim - 1], tensor_numel = 1, view_numel = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        tensor_numel *= t->shape[d];
        if (d == 0 || (t->shape[d - 1] != 1 && t->strides[d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
                out[view_d] = view_numel * chunk_base_stride;
                view_numel *= shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (d > 0) {
                chunk_base_stride = t->strides[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

lm_tensor *lm_cpu_view(lm_tensor *self, const int64_t *size, int64_t size_len) {
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    if (infer_size(self, size, size_len, shape)) return NULL;
    if (!view_strides(self, (int)size_len, shape, strides)) {
        lm_set_error(LM_ERR_RUNTIME, "view size is not compatible with input tensor's size and stride (at least "
                     "one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    return restride(self, (int)size_len, shape, strides);
}

lm_tensor *lm_cpu_reshape(lm_tensor *self, const int64_t *shape, int64_t shape_len) {
    int64_t sh[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    if (infer_size(self, shape, shape_len, sh)) return NULL;
    if (view_strides(self, (int)shape_len, sh, strides)) return restride(self, (int)shape_len, sh, strides);
    lm_tensor *c = lm_contiguous(self);
    if (!c) return NULL;
    lm_contiguous_strides((int)shape_len, sh, strides);
    lm_tensor *r = restride(c, (int)shape_len, sh, strides);
    lm_release(c);
    return r;
}

lm_tensor *lm_cpu_transpose(lm_tensor *self, int64_t dim0, int64_t dim1) {
    int a, b;
    if (lm_wrap_dim(dim0, self->ndim, &a) || lm_wrap_dim(dim1, self->ndim, &b)) return NULL;
    if (self->ndim == 0) return restride(self, 0, NULL, NULL);
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    memcpy(shape, self->shape, sizeof shape);
    memcpy(strides, self->strides, sizeof strides);
    shape[a] = self->shape[b]; shape[b] = self->shape[a];
    strides[a] = self->strides[b]; strides[b] = self->strides[a];
    return restride(self, self->ndim, shape, strides);
}

lm_tensor *lm_cpu_t(lm_tensor *self) {
    if (self->ndim > 2)
        { lm_set_error(LM_ERR_VALUE, "t() expects a tensor with <= 2 dimensions, but self is %dD", self->ndim); return NULL; }
    return self->ndim < 2 ? restride(self, self->ndim, self->shape, self->strides) : lm_cpu_transpose(self, 0, 1);
}

lm_tensor *lm_cpu_permute(lm_tensor *self, const int64_t *dims, int64_t dims_len) {
    if (dims_len != self->ndim) {
        lm_set_error(LM_ERR_VALUE, "number of dims don't match in permute: input has %d dims but %lld were given",
                     self->ndim, (long long)dims_len);
        return NULL;
    }
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    bool seen[LM_MAX_DIMS] = {0};
    for (int i = 0; i < self->ndim; i++) {
        int d;
        if (lm_wrap_dim(dims[i], self->ndim, &d)) return NULL;
        if (seen[d]) { lm_set_error(LM_ERR_VALUE, "repeated dim %d in permute", d); return NULL; }
        seen[d] = true;
        shape[i] = self->shape[d];
        strides[i] = self->strides[d];
    }
    return restride(self, self->ndim, shape, strides);
}

lm_tensor *lm_cpu_expand(lm_tensor *self, const int64_t *size, int64_t size_len) {
    if (size_len < self->ndim || size_len > LM_MAX_DIMS) {
        lm_set_error(LM_ERR_VALUE, "the number of sizes provided (%lld) must be greater or equal to the number of "
                     "dimensions in the tensor (%d)", (long long)size_len, self->ndim);
        return NULL;
    }
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    int lead = (int)size_len - self->ndim;
    for (int i = (int)size_len - 1; i >= 0; i--) {
        int d = i - lead;
        int64_t want = size[i];
        if (d < 0) {
            if (want < 0) { lm_set_error(LM_ERR_VALUE, "the expanded size of the tensor (%lld) isn't allowed in a "
                                         "leading, non-existing dimension %d", (long long)want, i); return NULL; }
            shape[i] = want; strides[i] = 0;
            continue;
        }
        int64_t have = self->shape[d];
        if (want == -1) want = have;
        if (have == want) { shape[i] = have; strides[i] = self->strides[d]; }
        else if (have == 1 && want >= 0) { shape[i] = want; strides[i] = 0; }
        else {
            lm_set_error(LM_ERR_VALUE, "The expanded size of the tensor (%lld) must match the existing size (%lld) at "
                         "non-singleton dimension %d", (long long)want, (long long)have, i);
            return NULL;
        }
    }
    return restride(self, (int)size_len, shape, strides);
}

lm_tensor *lm_cpu_squeeze(lm_tensor *self, const int64_t *dim, int64_t dim_len) {
    bool drop[LM_MAX_DIMS] = {0};
    for (int d = 0; d < self->ndim; d++) drop[d] = dim_len < 0 && self->shape[d] == 1;
    for (int64_t i = 0; i < dim_len; i++) {
        int d;
        if (lm_wrap_dim(dim[i], self->ndim, &d)) return NULL;
        if (self->ndim) drop[d] = self->shape[d] == 1;
    }
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < self->ndim; d++)
        if (!drop[d]) { shape[n] = self->shape[d]; strides[n++] = self->strides[d]; }
    return restride(self, n, shape, strides);
}

lm_tensor *lm_cpu_unsqueeze(lm_tensor *self, int64_t dim) {
    int d;
    if (lm_wrap_dim(dim, self->ndim + 1, &d)) return NULL;
    if (self->ndim + 1 > LM_MAX_DIMS) { lm_set_error(LM_ERR_VALUE, "too many dimensions"); return NULL; }
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    for (int i = 0, j = 0; i <= self->ndim; i++) {
        if (i == d) {
            shape[i] = 1;
            strides[i] = d < self->ndim ? self->shape[d] * self->strides[d] : 1;
        } else {
            shape[i] = self->shape[j]; strides[i] = self->strides[j]; j++;
        }
    }
    return restride(self, self->ndim + 1, shape, strides);
}

lm_tensor *lm_cpu_flatten(lm_tensor *self, int64_t start_dim, int64_t end_dim) {
    int s, e;
    if (lm_wrap_dim(start_dim, self->ndim, &s) || lm_wrap_dim(end_dim, self->ndim, &e)) return NULL;
    if (s > e) { lm_set_error(LM_ERR_VALUE, "flatten() has invalid args: start_dim cannot come after end_dim"); return NULL; }
    if (self->ndim == 0) { int64_t one = 1; return lm_cpu_reshape(self, &one, 1); }
    int64_t shape[LM_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < s; d++) shape[n++] = self->shape[d];
    int64_t m = 1;
    for (int d = s; d <= e; d++) m *= self->shape[d];
    shape[n++] = m;
    for (int d = e + 1; d < self->ndim; d++) shape[n++] = self->shape[d];
    return lm_cpu_reshape(self, shape, n);
}

lm_tensor *lm_cpu_narrow(lm_tensor *self, int64_t dim, int64_t start, int64_t length) {
    int d;
    if (self->ndim == 0) { lm_set_error(LM_ERR_VALUE, "narrow() cannot be applied to a 0-dim tensor."); return NULL; }
    if (lm_wrap_dim(dim, self->ndim, &d)) return NULL;
    int64_t size = self->shape[d];
    if (start < -size || start > size) {
        lm_set_error(LM_ERR_INDEX, "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                     (long long)-size, (long long)size, (long long)start);
        return NULL;
    }
    if (start < 0) start += size;
    if (length < 0 || length > size - start) {   /* start is in [0, size]: no overflow */
        lm_set_error(LM_ERR_VALUE, "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                     (long long)start, (long long)length, (long long)size);
        return NULL;
    }
    int64_t shape[LM_MAX_DIMS];
    memcpy(shape, self->shape, sizeof shape);
    shape[d] = length;
    return lm_view(self, self->ndim, shape, self->strides, self->offset + start * self->strides[d]);
}

lm_tensor *lm_cpu_contiguous(lm_tensor *self) { return lm_contiguous(self); }

lm_tensor *lm_cpu_clone(lm_tensor *self) {
    lm_tensor *out = lm_empty_like(self, -1);
    if (out && lm_copy_into(out, self)) { lm_release(out); return NULL; }
    return out;
}

lm_tensor *lm_cpu_to_dtype(lm_tensor *self, int dtype, bool non_blocking, bool copy) {
    (void)non_blocking;
    if (copy && dtype == self->dtype) return lm_cpu_clone(self);
    return lm_cast(self, dtype);
}

lm_tensor *lm_cpu_to_device(lm_tensor *self, int device, int dtype, bool non_blocking, bool copy) {
    if (dtype < 0) dtype = self->dtype;
    if (device < 0 || device == self->device) return lm_cpu_to_dtype(self, dtype, non_blocking, copy);
    lm_tensor *out = lm_empty(self->ndim, self->shape, dtype, device);
    if (out && lm_copy_into(out, self)) { lm_release(out); return NULL; }
    return out;
}

int lm_cpu_copy_(lm_tensor *self, lm_tensor *src) {
    if (lm_check_writable(self)) return -1;
    int nd;
    int64_t shape[LM_MAX_DIMS];
    if (lm_broadcast_shapes(self->ndim, self->shape, src->ndim, src->shape, &nd, shape)) return -1;
    if (nd != self->ndim || memcmp(shape, self->shape, sizeof(int64_t) * (size_t)nd)) {
        char a[256], b[256];
        lm_format_shape(a, sizeof a, src->ndim, src->shape);
        lm_format_shape(b, sizeof b, self->ndim, self->shape);
        return lm_set_error(LM_ERR_VALUE, "source of shape %s cannot be broadcast to destination of shape %s", a, b);
    }
    if (src->storage == self->storage) {   /* overlapping source: copy it first */
        lm_tensor *tmp = lm_cpu_clone(src);
        if (!tmp) return -1;
        int err = lm_copy_into(self, tmp);
        lm_release(tmp);
        return err;
    }
    return lm_copy_into(self, src);
}

int lm_cpu_fill_(lm_tensor *self, lm_scalar value) {
    if (lm_check_writable(self) || lm_check_scalar_fits(value, self->dtype)) return -1;
    lm_tensor *v = lm_scalar_tensor(value, self->dtype, false);
    if (!v) return -1;
    int err = lm_copy_into(self, v);
    lm_release(v);
    return err;
}

lm_tensor *lm_cpu_empty(const int64_t *size, int64_t size_len, int dtype, int device) {
    if (lm_check_shape((int)size_len, size)) return NULL;
    return lm_empty((int)size_len, size, dtype < 0 ? lm_get_default_dtype() : dtype, device < 0 ? LM_CPU : device);
}

/* Its storage holds 1 + sum (size - 1) stride elements (none for an empty size), as PyTorch's. */
lm_tensor *lm_cpu_empty_strided(const int64_t *size, int64_t size_len, const int64_t *stride, int64_t stride_len,
                                int dtype, int device) {
    if (lm_check_shape((int)size_len, size)) return NULL;
    if (stride_len != size_len) {
        lm_set_error(LM_ERR_RUNTIME, "dimensionality of sizes (%lld) must match dimensionality of strides (%lld)",
                     (long long)size_len, (long long)stride_len);
        return NULL;
    }
    bool empty = false, overflow = false;
    for (int64_t d = 0; d < size_len; d++) empty = empty || size[d] == 0;
    int64_t extent = 1;
    for (int64_t d = 0; d < size_len && !empty && !overflow; d++) {
        int64_t step;
        overflow = stride[d] < 0 || __builtin_mul_overflow(size[d] - 1, stride[d], &step) ||
                   __builtin_add_overflow(extent, step, &extent);
    }
    if (overflow) {
        char a[256], b[256];
        lm_format_shape(a, sizeof a, (int)size_len, size);
        lm_format_shape(b, sizeof b, (int)size_len, stride);
        lm_set_error(LM_ERR_RUNTIME, "Storage size calculation overflowed with sizes=%s and strides=%s", a, b);
        return NULL;
    }
    return lm_empty_strided((int)size_len, size, stride, dtype < 0 ? lm_get_default_dtype() : dtype,
                            device < 0 ? LM_CPU : device);
}

/* The diagonal at `offset` of dims dim1 and dim2 as a view: those dims removed, one dim of stride
 * stride1 + stride2 appended. Offsets past the edge give an empty diagonal (no overflow for any int64). */
lm_tensor *lm_cpu_diagonal(lm_tensor *self, int64_t offset, int64_t dim1, int64_t dim2) {
    int a, b;
    if (lm_wrap_dim(dim1, self->ndim, &a) || lm_wrap_dim(dim2, self->ndim, &b)) return NULL;
    if (a == b) {
        lm_set_error(LM_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld", (long long)dim1, (long long)dim2);
        return NULL;
    }
    int64_t rows = self->shape[a], cols = self->shape[b], len, start = self->offset;
    if (offset >= 0)
        len = offset >= cols ? 0 : (rows < cols - offset ? rows : cols - offset);
    else
        len = offset <= -rows ? 0 : (rows + offset < cols ? rows + offset : cols);
    if (len > 0)
        start += offset >= 0 ? offset * self->strides[b] : -offset * self->strides[a];
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < self->ndim; i++)
        if (i != a && i != b) { shape[n] = self->shape[i]; strides[n] = self->strides[i]; n++; }
    shape[n] = len;
    strides[n] = self->strides[a] + self->strides[b];
    return lm_view(self, n + 1, shape, strides, start);
}

/* Tensor.unfold: the windows of `size` elements, `step` apart, along `dimension` as a view: that dim
 * counts the windows (stride step times its own) and a last dim of size `size` walks a window. */
lm_tensor *lm_cpu_unfold(lm_tensor *self, int64_t dimension, int64_t size, int64_t step) {
    int d;
    if (lm_wrap_dim(dimension, self->ndim, &d)) return NULL;
    int64_t len = self->ndim ? self->shape[d] : 1;
    if (size > len) {
        lm_set_error(LM_ERR_RUNTIME, "maximum size for tensor at dimension %d is %lld but size is %lld", d,
                     (long long)len, (long long)size);
        return NULL;
    }
    if (size < 0) { lm_set_error(LM_ERR_RUNTIME, "size is %lld but must be >= 0", (long long)size); return NULL; }
    if (step <= 0) { lm_set_error(LM_ERR_RUNTIME, "step is %lld but must be > 0", (long long)step); return NULL; }
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS];
    if (self->ndim == 0) {   /* PyTorch: a 0-d tensor gives [size] (size is 0 or 1) */
        shape[0] = size;
        strides[0] = 1;
        return lm_view(self, 1, shape, strides, self->offset);
    }
    if (self->ndim >= LM_MAX_DIMS) {
        lm_set_error(LM_ERR_RUNTIME, "unfold: too many dimensions (%d)", self->ndim);
        return NULL;
    }
    for (int i = 0; i < self->ndim; i++) { shape[i] = self->shape[i]; strides[i] = self->strides[i]; }
    shape[d] = (len - size) / step + 1;
    strides[d] = self->strides[d] * step;
    shape[self->ndim] = size;
    strides[self->ndim] = self->strides[d];
    return lm_view(self, self->ndim + 1, shape, strides, self->offset);
}

/* A view of self's storage with the given sizes, strides and storage offset (self's own offset when
   none is given: INT64_MIN), checked against the storage's size as PyTorch's setStorage checks it. */
lm_tensor *lm_cpu_as_strided(lm_tensor *self, const int64_t *size, int64_t size_len, const int64_t *stride,
                             int64_t stride_len, int64_t storage_offset) {
    if (size_len != stride_len) {
        lm_set_error(LM_ERR_RUNTIME, "mismatch in length of strides and shape");
        return NULL;
    }
    if (size_len > LM_MAX_DIMS) {
        lm_set_error(LM_ERR_RUNTIME, "as_strided: too many dimensions (%lld)", (long long)size_len);
        return NULL;
    }
    int64_t offset = storage_offset == INT64_MIN ? self->offset : storage_offset;
    if (offset < 0) {
        lm_set_error(LM_ERR_RUNTIME, "Tensor: invalid storage offset %lld", (long long)offset);
        return NULL;
    }
    int64_t last = offset, empty = 0;
    for (int64_t i = 0; i < size_len; i++) {
        if (size[i] < 0) {
            lm_set_error(LM_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld", (long long)size[i]);
            return NULL;
        }
        if (stride[i] < 0) {
            lm_set_error(LM_ERR_RUNTIME, "as_strided: Negative strides are not supported at the moment, got "
                         "stride %lld at dimension %lld", (long long)stride[i], (long long)i);
            return NULL;
        }
        if (size[i] == 0) empty = 1;
        else if (stride[i] > 0 && (size[i] - 1) > (INT64_MAX - last) / stride[i]) {
            lm_set_error(LM_ERR_RUNTIME, "as_strided: the view's extent overflows int64");
            return NULL;
        }
        else last += (size[i] - 1) * stride[i];
    }
    int64_t item = lm_itemsize(self->dtype);
    int64_t have = (int64_t)(self->storage->nbytes / (size_t)item);
    if (!empty && last >= have) {
        lm_set_error(LM_ERR_RUNTIME, "setStorage: storage offset %lld and the view's largest index %lld (itemsize "
                     "%lld) requiring a storage size of %lld are out of bounds for storage of size %lld",
                     (long long)offset, (long long)(last - offset), (long long)item, (long long)((last + 1) * item),
                     (long long)(have * item));
        return NULL;
    }
    return lm_view(self, (int)size_len, size, stride, offset);
}

/* self's memory read as `dtype` (Tensor.view(dtype)): with the same element size, the same shape and
 * strides; otherwise the last dim (stride 1) holds size * old / new elements of the new dtype, the
 * other strides and the offset scaled alike, which must come out whole (PyTorch's checks, in its words) */
lm_tensor *lm_cpu_view_dtype(lm_tensor *self, int dtype) {
    int64_t old = (int64_t)lm_itemsize(self->dtype), new = (int64_t)lm_itemsize(dtype);
    int n = self->ndim;
    int64_t shape[LM_MAX_DIMS], strides[LM_MAX_DIMS], offset = self->offset;
    for (int d = 0; d < n; d++) { shape[d] = self->shape[d]; strides[d] = self->strides[d]; }
    if (old != new) {
        const char *from = lm_dtype_torch_names[self->dtype], *to = lm_dtype_torch_names[dtype];
        if (n == 0) {
            lm_set_error(LM_ERR_RUNTIME, "self.dim() cannot be 0 to view %s as %s (different element sizes)", from, to);
            return NULL;
        }
        if (strides[n - 1] != 1) {
            lm_set_error(LM_ERR_RUNTIME, "self.stride(-1) must be 1 to view %s as %s (different element sizes), "
                         "but got %lld", from, to, (long long)strides[n - 1]);
            return NULL;
        }
        if (old > new) {
            int64_t r = old / new;
            for (int d = 0; d < n - 1; d++) strides[d] *= r;
            shape[n - 1] *= r;
            offset *= r;
        } else {
            int64_t r = new / old;
            if (shape[n - 1] % r) {
                lm_set_error(LM_ERR_RUNTIME, "self.size(-1) must be divisible by %lld to view %s as %s (different "
                             "element sizes), but got %lld", (long long)r, from, to, (long long)shape[n - 1]);
                return NULL;
            }
            if (offset % r) {
                lm_set_error(LM_ERR_RUNTIME, "self.storage_offset() must be divisible by %lld to view %s as %s "
                             "(different element sizes), but got %lld", (long long)r, from, to, (long long)offset);
                return NULL;
            }
            for (int d = 0; d < n - 1; d++)
                if (strides[d] % r) {
                    lm_set_error(LM_ERR_RUNTIME, "self.stride(%d) must be divisible by %lld to view %s as %s "
                                 "(different element sizes), but got %lld", d, (long long)r, from, to,
                                 (long long)strides[d]);
                    return NULL;
                }
            for (int d = 0; d < n - 1; d++) strides[d] /= r;
            shape[n - 1] /= r;
            offset /= r;
        }
    }
    return lm_view_dtype(self, n, shape, strides, offset, dtype);
}
