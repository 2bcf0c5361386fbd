/* flip and roll in one copy each: flip copies a view with the flipped dims'
 * strides negated; roll copies the 2^k blocks that each rolled dim splits into
 * (the part that wraps around and the part that does not) straight to their
 * places. The negative-stride view never leaves this file. */
#include <string.h>
#include "loom.h"
#include "loom_ops.h"

/* PyTorch flips uint16/32/64 only where its copy needs no loop of the dtype: nothing to flip (each
 * flipped dim of size 1 or stride 0), or whole rows moved, the result's innermost dim of size > 1
 * unflipped and contiguous in self (the result keeps a dense self's order, else is row-major) */
static bool flip_moves_rows(const lm_tensor *self, const bool *flip) {
    bool any = false;
    int inner = -1;
    for (int d = 0; d < self->ndim; d++) {
        if (self->shape[d] < 2) continue;
        any |= flip[d] && self->strides[d] != 0;
        if (inner < 0 || !lm_is_dense(self) || self->strides[d] < self->strides[inner]) inner = d;
    }
    return !any || (!flip[inner] && self->strides[inner] == 1);
}

lm_tensor *lm_cpu_flip(lm_tensor *self, const int64_t *dims, int64_t dims_len) {
    bool flip[LM_MAX_DIMS] = {false};
    for (int64_t i = 0; i < dims_len; i++) {
        int d;
        if (lm_wrap_dim(dims[i], self->ndim, &d)) return NULL;
        if (self->ndim == 0) continue;
        if (flip[d]) { lm_set_error(LM_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", d); return NULL; }
        flip[d] = true;
    }
    if (lm_is_barebones(self->dtype) && !flip_moves_rows(self, flip)) {
        lm_set_error(LM_ERR_TYPE, "not implemented for dtype %s", lm_dtype_name(self->dtype));
        return NULL;
    }
    int64_t strides[LM_MAX_DIMS], offset = self->offset;
    for (int d = 0; d < self->ndim; d++) {
        strides[d] = self->strides[d];
        if (flip[d] && self->shape[d] > 1) {   /* start at the last element and walk backwards */
            offset += (self->shape[d] - 1) * strides[d];
            strides[d] = -strides[d];
        }
    }
    lm_tensor *view = lm_view(self, self->ndim, self->shape, strides, offset), *out = lm_empty_like(self, -1);
    if (!view || !out || lm_copy_into(out, view)) { lm_release(view); lm_release(out); return NULL; }
    lm_release(view);
    return out;
}

/* dst[(i + k[d]) % n] = src[i] along every dim d, src and dst of one shape */
static int roll_copy(lm_tensor *dst, lm_tensor *src, const int64_t *k) {
    int nd = src->ndim, rolled[LM_MAX_DIMS], m = 0;
    for (int d = 0; d < nd; d++)
        if (k[d]) rolled[m++] = d;
    for (int64_t part = 0; part < ((int64_t)1 << m); part++) {
        int64_t shape[LM_MAX_DIMS], soff = src->offset, doff = dst->offset;
        memcpy(shape, src->shape, sizeof(int64_t) * (size_t)nd);
        for (int j = 0; j < m; j++) {
            int d = rolled[j];
            int64_t n = src->shape[d];
            if (part >> j & 1) {   /* src's last k elements wrap to dst's front */
                shape[d] = k[d];
                soff += (n - k[d]) * src->strides[d];
            } else {               /* src's first n - k elements move k along */
                shape[d] = n - k[d];
                doff += k[d] * dst->strides[d];
            }
        }
        lm_tensor *s = lm_view(src, nd, shape, src->strides, soff), *o = lm_view(dst, nd, shape, dst->strides, doff);
        int rc = (!s || !o) ? -1 : lm_copy_into(o, s);
        lm_release(s);
        lm_release(o);
        if (rc) return -1;
    }
    return 0;
}

lm_tensor *lm_cpu_roll(lm_tensor *self, const int64_t *shifts, int64_t shifts_len, const int64_t *dims,
                       int64_t dims_len) {
    if (shifts_len == 0) { lm_set_error(LM_ERR_RUNTIME, "`shifts` required"); return NULL; }
    if (shifts_len != dims_len && !(shifts_len == 1 && dims_len == 0)) {
        lm_set_error(LM_ERR_RUNTIME, "shifts and dimensions must align. shifts: %lld, dims:%lld", (long long)shifts_len,
                     (long long)dims_len);
        return NULL;
    }
    if (dims_len && self->ndim == 0) {
        lm_set_error(LM_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions", (long long)dims[0]);
        return NULL;
    }
    int64_t k[LM_MAX_DIMS] = {0};
    int d;
    for (int64_t i = 0; i < dims_len; i++) {
        if (lm_wrap_dim(dims[i], self->ndim, &d)) return NULL;
        k[d] += shifts[i] % (self->shape[d] ? self->shape[d] : 1);   /* repeated dims add up, as rolling twice */
    }
    lm_tensor *out = lm_empty_like(self, -1), *src = NULL, *dst = NULL;
    if (!out) return NULL;
    if (dims_len == 0) {   /* roll the flattened tensor: 1-D views of a contiguous self and of out */
        int64_t n = lm_numel(self), one = 1;
        lm_tensor *x = lm_contiguous(self);
        src = x ? lm_view(x, 1, &n, &one, x->offset) : NULL;
        dst = lm_view(out, 1, &n, &one, out->offset);
        lm_release(x);
        k[0] = n ? shifts[0] % n : 0;
        if (k[0] < 0) k[0] += n;
    } else {
        for (d = 0; d < self->ndim; d++)
            if (self->shape[d]) k[d] = ((k[d] % self->shape[d]) + self->shape[d]) % self->shape[d];
        lm_retain(self);
        lm_retain(out);
        src = self;
        dst = out;
    }
    int rc = (!src || !dst) ? -1 : roll_copy(dst, src, k);
    lm_release(src);
    lm_release(dst);
    if (rc) { lm_release(out); return NULL; }
    return out;
}
