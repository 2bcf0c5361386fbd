/* Tensor and storage lifetime, construction, views and shape helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "ops_support.h"   /* LM_SCALAR_AS */

/* Atomic refcounts: kernels release the GIL (lm_gil_release), so other
 * threads may retain and release tensors meanwhile. */
void lm_retain(lm_tensor *t) { __atomic_add_fetch(&t->refcount, 1, __ATOMIC_RELAXED); }

/* What is alive, for lm_memory_stats (leak tests): tensor headers, storages and the bytes
 * of the storages loom allocated (not those wrapping another library's memory). */
static int64_t live_tensors, live_storages, live_bytes;
#define COUNT(var, d) __atomic_add_fetch(&(var), (d), __ATOMIC_RELAXED)

void lm_memory_stats(int64_t *out) {
    out[0] = __atomic_load_n(&live_tensors, __ATOMIC_RELAXED);
    out[1] = __atomic_load_n(&live_storages, __ATOMIC_RELAXED);
    out[2] = __atomic_load_n(&live_bytes, __ATOMIC_RELAXED);
    out[3] = lm_allocator_cached_bytes();
}

/* Small CPU storages carry their data in the same block (one malloc, not two). */
#define INLINE_MAX 4096
#define INLINE_PAD 64

static void storage_release(lm_storage *s) {
    if (__atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) != 0) return;
    COUNT(live_storages, -1);
    if (s->deleter) s->deleter(s->ctx);
    else {
        COUNT(live_bytes, -(int64_t)s->nbytes);
        if (s->data != (char *)s + INLINE_PAD) lm_allocator_for(s->device)->free(s->data, s->nbytes);
    }
    free(s);
}

void lm_release(lm_tensor *t) {
    if (!t) return;
    if (__atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL) != 0) return;
    storage_release(t->storage);
    COUNT(live_tensors, -1);
    free(t);
}

/* out= given an empty tensor takes the result's shape, as PyTorch resizes it:
 * it gets a fresh contiguous storage of that shape (its views keep the old one). */
int lm_resize_empty(lm_tensor *out, int ndim, const int64_t *shape) {
    lm_tensor *fresh = lm_empty(ndim, shape, out->dtype, out->device);
    if (!fresh) return -1;
    lm_storage *old = out->storage;
    __atomic_add_fetch(&fresh->storage->refcount, 1, __ATOMIC_RELAXED);
    out->storage = fresh->storage;
    out->offset = 0;
    out->ndim = ndim;
    memcpy(out->shape, fresh->shape, sizeof(int64_t) * (size_t)ndim);
    memcpy(out->strides, fresh->strides, sizeof(int64_t) * (size_t)ndim);
    storage_release(old);
    lm_release(fresh);
    return 0;
}

void lm_bump_version(lm_tensor *t) { __atomic_add_fetch(&t->storage->version, 1, __ATOMIC_RELAXED); }

int lm_format_shape(char *buf, size_t cap, int ndim, const int64_t *shape) {
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < ndim && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, d ? ", %lld" : "%lld", (long long)shape[d]);
    if (n < cap) snprintf(buf + n, cap - n, "]");
    return 0;
}

int lm_check_shape(int n, const int64_t *shape) {
    if (n < 0 || n > LM_MAX_DIMS)
        return lm_set_error(LM_ERR_VALUE, "tensors have at most %d dimensions, got %d", LM_MAX_DIMS, n);
    int64_t numel = 1;
    bool empty = false;
    for (int d = 0; d < n; d++) {
        if (shape[d] < 0)
            return lm_set_error(LM_ERR_VALUE, "negative dimension %lld", (long long)shape[d]);
        empty |= shape[d] == 0;
    }
    for (int d = 0; d < n && !empty; d++)   /* sizes whose product overflows would read as a small numel */
        if (__builtin_mul_overflow(numel, shape[d], &numel))
            return lm_set_error(LM_ERR_VALUE, "the number of elements of a tensor of these sizes overflows int64");
    return 0;
}

int lm_wrap_dim(int64_t dim, int ndim, int *out) {
    int64_t n = ndim ? ndim : 1;     /* a 0-d tensor accepts dim 0 and -1, as in PyTorch */
    if (dim < -n || dim >= n)
        return lm_set_error(LM_ERR_INDEX, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                            (long long)-n, (long long)(n - 1), (long long)dim);
    *out = (int)(dim < 0 ? dim + n : dim);
    return 0;
}

void lm_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides) {
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) { strides[d] = s; s *= shape[d] > 1 ? shape[d] : 1; }
}

int64_t lm_numel(const lm_tensor *t) {
    uint64_t n = 1;   /* unsigned: huge sizes beside a 0 wrap harmlessly on the way to 0 */
    for (int d = 0; d < t->ndim; d++) n *= (uint64_t)t->shape[d];
    return (int64_t)n;
}

bool lm_is_contiguous(const lm_tensor *t) {
    int64_t s = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] == 0) return true;
        if (t->shape[d] != 1 && t->strides[d] != s) return false;
        s *= t->shape[d];
    }
    return true;
}

bool lm_same_shape(const lm_tensor *a, const lm_tensor *b) {
    if (a->ndim != b->ndim) return false;
    for (int d = 0; d < a->ndim; d++) if (a->shape[d] != b->shape[d]) return false;
    return true;
}

static lm_tensor *new_header(lm_storage *s, int ndim, const int64_t *shape, const int64_t *strides,
                             int64_t offset, int dtype) {
    lm_tensor *t = malloc(sizeof *t);
    if (!t) { lm_set_error(LM_ERR_MEMORY, "out of memory"); return NULL; }
    COUNT(live_tensors, 1);
    t->storage = s;
    t->offset = offset;
    t->refcount = 1;
    t->ndim = ndim;
    t->dtype = dtype;
    t->device = s->device;
    t->flags = 0;
    memcpy(t->shape, shape, sizeof(int64_t) * (size_t)ndim);
    memcpy(t->strides, strides, sizeof(int64_t) * (size_t)ndim);
    return t;
}

static int checked_bytes(int ndim, const int64_t *shape, int dtype, size_t *out) {
    if (lm_check_shape(ndim, shape)) return -1;
    if (dtype < 0 || dtype >= LM_NUM_DTYPES) return lm_set_error(LM_ERR_TYPE, "invalid dtype code %d", dtype);
    uint64_t n = 1;
    for (int d = 0; d < ndim; d++)
        if (shape[d] == 0) { *out = 0; return 0; }   /* empty whatever the other sizes, as in PyTorch */
    for (int d = 0; d < ndim; d++) {
        if (n > (UINT64_MAX >> 4) / (uint64_t)shape[d])
            return lm_set_error(LM_ERR_MEMORY, "tensor of this shape is too large to allocate");
        n *= (uint64_t)shape[d];
    }
    if (n > ((uint64_t)1 << 46)) return lm_set_error(LM_ERR_MEMORY, "tensor of this shape is too large to allocate");
    *out = (size_t)n * lm_itemsize(dtype);
    return 0;
}

lm_tensor *lm_empty(int ndim, const int64_t *shape, int dtype, int device) {
    size_t nbytes = 0;
    if (checked_bytes(ndim, shape, dtype, &nbytes)) return NULL;
    const lm_allocator *a = lm_allocator_for(device);
    if (!a) return NULL;
    bool inl = device == LM_CPU && nbytes <= INLINE_MAX;
    lm_storage *s = malloc(inl ? INLINE_PAD + nbytes : sizeof *s);
    void *data = !s ? NULL : inl ? (char *)s + INLINE_PAD : a->alloc(nbytes);
    if (!data) {
        free(s);
        lm_set_error(LM_ERR_MEMORY, "out of memory allocating %zu bytes", nbytes);
        return NULL;
    }
    memset(s, 0, sizeof *s);
    COUNT(live_storages, 1);
    COUNT(live_bytes, (int64_t)nbytes);
    s->data = data;
    s->nbytes = nbytes;
    s->refcount = 1;
    s->device = device;
    int64_t strides[LM_MAX_DIMS];
    lm_contiguous_strides(ndim, shape, strides);
    lm_tensor *t = new_header(s, ndim, shape, strides, 0, dtype);
    if (!t) storage_release(s);
    return t;
}

lm_tensor *lm_empty_like(const lm_tensor *t, int dtype) {
    return lm_empty(t->ndim, t->shape, dtype < 0 ? t->dtype : dtype, t->device);
}

lm_tensor *lm_empty_strided(int ndim, const int64_t *shape, const int64_t *strides, int dtype, int device) {
    if (!strides) return lm_empty(ndim, shape, dtype, device);
    size_t nbytes = 0;
    if (checked_bytes(ndim, shape, dtype, &nbytes)) return NULL;
    int64_t extent = 1;
    for (int d = 0; d < ndim; d++) {
        if (strides[d] < 0) { lm_set_error(LM_ERR_VALUE, "negative strides are not supported"); return NULL; }
        if (shape[d] == 0) { extent = 0; break; }
        extent += (shape[d] - 1) * strides[d];
    }
    int64_t one = extent;
    lm_tensor *base = lm_empty(1, &one, dtype, device);
    if (!base) return NULL;
    lm_tensor *t = lm_view(base, ndim, shape, strides, 0);
    lm_release(base);
    return t;
}

lm_tensor *lm_view(lm_tensor *base, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    if (lm_check_shape(ndim, shape)) return NULL;
    lm_tensor *t = new_header(base->storage, ndim, shape, strides, offset, base->dtype);
    if (t) __atomic_add_fetch(&base->storage->refcount, 1, __ATOMIC_RELAXED);
    return t;
}

lm_tensor *lm_view_dtype(lm_tensor *base, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset,
                         int dtype) {
    if (lm_check_shape(ndim, shape)) return NULL;
    lm_tensor *t = new_header(base->storage, ndim, shape, strides, offset, dtype);
    if (t) __atomic_add_fetch(&base->storage->refcount, 1, __ATOMIC_RELAXED);
    return t;
}

lm_tensor *lm_as_strided(lm_tensor *t, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    if (lm_check_shape(ndim, shape)) return NULL;
    /* a view must stay inside its storage, or a Python user could read freed memory; every
     * product and sum of user integers is overflow-checked, or a huge stride wraps inside */
    int64_t lo = offset, hi = offset, item = (int64_t)lm_itemsize(t->dtype), end = 0;
    bool empty = false, overflow = false;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 0) { empty = true; continue; }
        int64_t span;
        overflow |= __builtin_mul_overflow(shape[d] - 1, strides[d], &span);
        overflow |= span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi);
    }
    overflow |= __builtin_add_overflow(hi, 1, &end) || __builtin_mul_overflow(end, item, &end);
    if (!empty && (overflow || lo < 0 || end > (int64_t)t->storage->nbytes)) {
        lm_set_error(LM_ERR_INDEX, "view is out of bounds for storage of size %lld",
                     (long long)(t->storage->nbytes / (size_t)item));
        return NULL;
    }
    return lm_view(t, ndim, shape, strides, offset);
}

lm_tensor *lm_from_blob(void *data, int ndim, const int64_t *shape, const int64_t *strides,
                        int dtype, int device, void (*deleter)(void *), void *ctx) {
    if (lm_check_shape(ndim, shape)) return NULL;
    if (dtype < 0 || dtype >= LM_NUM_DTYPES) { lm_set_error(LM_ERR_TYPE, "invalid dtype"); return NULL; }
    lm_storage *s = calloc(1, sizeof *s);
    if (!s) { lm_set_error(LM_ERR_MEMORY, "out of memory"); return NULL; }
    COUNT(live_storages, 1);
    int64_t extent = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 0) { extent = 0; break; }
        extent += (shape[d] - 1) * strides[d];
    }
    s->data = data;
    s->nbytes = (size_t)extent * lm_itemsize(dtype);
    s->refcount = 1;
    s->device = device;
    s->deleter = deleter;
    s->ctx = ctx;
    if (!deleter) COUNT(live_bytes, (int64_t)s->nbytes);   /* loom's allocator frees it: counted as loom's */
    lm_tensor *t = new_header(s, ndim, shape, strides, 0, dtype);
    if (!t) { s->deleter = NULL; s->data = NULL; s->nbytes = 0; storage_release(s); }
    return t;
}

void *lm_data_ptr(lm_tensor *t) { return lm_bytes(t); }
uintptr_t lm_data_address(lm_tensor *t) { return (uintptr_t)lm_bytes(t); }

lm_tensor *lm_scalar_tensor(lm_scalar v, int dtype, bool wrapped) {
    if (dtype < 0)
        dtype = v.kind == 3 ? LM_COMPLEX128 : v.kind == 2 ? LM_FLOAT64 : v.kind == 1 ? LM_INT64 : v.kind == 4 ? LM_UINT64 : LM_BOOL;
    if (lm_dtype_valid(dtype) && lm_dtype_work[dtype] != dtype) {   /* float16/bfloat16: rounded from float32 */
        lm_tensor *w = lm_scalar_tensor(v, lm_dtype_work[dtype], false);
        lm_tensor *t = w ? lm_cast(w, dtype) : NULL;
        lm_release(w);
        if (t && wrapped) t->flags |= LM_FLAG_WRAPPED_NUMBER;
        return t;
    }
    lm_tensor *t = lm_empty(0, NULL, dtype, LM_CPU);
    if (!t) return NULL;
    if (wrapped) t->flags |= LM_FLAG_WRAPPED_NUMBER;
    char *p = lm_bytes(t);
    if (lm_is_complex(dtype)) {
        double im = v.kind == 3 ? v.im : 0, re = v.kind >= 2 ? v.d : (double)v.i;
        if (dtype == LM_COMPLEX64) *(lm_complex64 *)p = LM_CMPLXF(re, im);
        else *(lm_complex128 *)p = LM_CMPLX(re, im);
        return t;
    }
    LM_DISPATCH_AND_BAREBONES(dtype, T, ,
        *(T *)p = LM_SCALAR_AS(T, v);)
    return t;
}

int lm_item(lm_tensor *t, lm_scalar *out) {
    if (lm_numel(t) != 1) {
        return lm_set_error(LM_ERR_RUNTIME, "a Tensor with %lld elements cannot be converted to Scalar",
                            (long long)lm_numel(t));
    }
    if (t->device != LM_CPU) {   /* one element down to the host */
        lm_tensor *h = lm_empty(t->ndim, t->shape, t->dtype, LM_CPU);
        int err = !h || lm_copy_into(h, t) || lm_item(h, out);
        lm_release(h);
        return err ? -1 : 0;
    }
    if (lm_dtype_work[t->dtype] != t->dtype) {   /* float16/bfloat16: read as float32 */
        lm_tensor *w = lm_cast(t, lm_dtype_work[t->dtype]);
        int err = !w || lm_item(w, out);
        lm_release(w);
        return err ? -1 : 0;
    }
    char *p = lm_bytes(t);
    out->d = 0; out->i = 0; out->im = 0;
    if (lm_is_complex(t->dtype)) {
        lm_complex128 z = t->dtype == LM_COMPLEX64 ? *(lm_complex64 *)p : *(lm_complex128 *)p;
        out->kind = 3; out->d = creal(z); out->im = cimag(z);
        return 0;
    }
    bool floating = lm_is_floating(t->dtype);
    LM_DISPATCH_AND_BAREBONES(t->dtype, T, return lm_set_error(LM_ERR_TYPE, "invalid dtype"),
        if (floating) { out->kind = 2; out->d = (double)*(T *)p; }
        else { out->kind = t->dtype == LM_BOOL ? 0 : 1; out->i = (int64_t)*(T *)p; }
        if (!floating && (T)-1 > (T)0 && out->i < 0) { out->kind = 4; out->d = (double)(uint64_t)out->i; })
    return 0;
}

int lm_broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out) {
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int64_t x = i < na ? a[na - 1 - i] : 1, y = i < nb ? b[nb - 1 - i] : 1;
        if (x != y && x != 1 && y != 1) {
            char sa[256], sb[256];
            lm_format_shape(sa, sizeof sa, na, a);
            lm_format_shape(sb, sizeof sb, nb, b);
            return lm_set_error(LM_ERR_VALUE,
                "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d "
                "(shapes %s and %s are not broadcastable)", (long long)x, (long long)y, n - 1 - i, sa, sb);
        }
        out[n - 1 - i] = x == 1 ? y : x;
    }
    *nout = n;
    return 0;
}

lm_tensor *lm_wrapped_scalar(double d, int64_t i, int kind) {
    lm_scalar v = {d, i, kind};
    return lm_scalar_tensor(v, -1, true);
}

int lm_check_writable(const lm_tensor *t) {
    if (lm_numel(t) == 0) return 0;   /* nothing is written (NumPy gives empty arrays zero strides) */
    for (int d = 0; d < t->ndim; d++)
        if (t->strides[d] == 0 && t->shape[d] > 1)
            return lm_set_error(LM_ERR_RUNTIME, "unsupported operation: more than one element of the written-to tensor "
                                "refers to a single memory location. Please clone() the tensor before performing "
                                "the operation.");
    return 0;
}
