/* loom._C's side of the CUDA backend (plain C, always built; reached only once
 * the CUDA library is loaded): loading it, the CUDA runners behind the device
 * seam (plan -> launch arguments), and copies between host and device. */
#include <dlfcn.h>
#include <string.h>
#include "alloc.h"
#include "cuda_host.h"

static const lm_cuda_backend *B;

const lm_cuda_backend *lm_cuda_backend_loaded(void) { return B; }

int lm_cuda_check(int err, const char *what) {
    if (!err) return 0;
    return lm_set_error(err == 2 ? LM_ERR_MEMORY : LM_ERR_RUNTIME, "CUDA error in %s: %s", what,
                        B ? B->error_string(err) : "the CUDA library is not loaded");
}

/* ---- the generated kernels, found by the op's C name ----------------------
 * An open-addressed table from spec pointer to kernel row, filled on first
 * use of each op: one string lookup per op per process. */
#define SLOTS 1024
static struct { const void *spec; const void *row; } memo[SLOTS];

static const void *find_row(const void *spec, const char *key, bool reduce) {
    size_t h = ((uintptr_t)spec >> 4) & (SLOTS - 1);
    for (size_t i = 0; i < SLOTS; i++, h = (h + 1) & (SLOTS - 1)) {
        if (memo[h].spec == spec) return memo[h].row;
        if (!memo[h].spec) break;
    }
    const void *row = NULL;
    for (int s = 0; s < B->nshards && !row; s++) {
        if (reduce) {
            for (const lm_cuda_red_entry *e = B->reduce[s]; e->key && !row; e++)
                if (!strcmp(e->key, key)) row = e;
        } else {
            for (const lm_cuda_pw_entry *e = B->pointwise[s]; e->key && !row; e++)
                if (!strcmp(e->key, key)) row = e;
        }
    }
    if (!memo[h].spec) { memo[h].spec = spec; memo[h].row = row; }
    return row;
}

static int no_kernel(const char *name, int dtype) {
    return lm_set_error(LM_ERR_NOTIMPL, "\"%s\" has no CUDA kernel for dtype %s", name, lm_dtype_name(dtype));
}

/* ---- pointwise ------------------------------------------------------------ */

/* a CPU operand of a CUDA op (a Python number, a 0-d CPU tensor): its value in `dtype` */
static void host_value(lm_tensor *t, int dtype, uint64_t *bits) {
    char *d[2] = {(char *)bits, lm_bytes(t)};
    int64_t st[2] = {0, 0};
    *bits = 0;
    lm_cast_loop(dtype, t->dtype)(d, st, 1, NULL);
}

static lm_tensor *cuda_pointwise(const lm_pointwise_spec *spec, const lm_pointwise_plan *p, lm_tensor **ins,
                                 lm_tensor *out, const void *ctx) {
    const lm_cuda_pw_entry *row = find_row(spec, spec->key, false);
    lm_cuda_pw_fn fn = row ? row->fn[p->compute] : NULL;
    if (!fn) { no_kernel(spec->name, p->compute); return NULL; }
    if (spec->ctx_size > LM_CUDA_CTX_BYTES) {
        lm_set_error(LM_ERR_RUNTIME, "%s: its arguments take %zu bytes, more than a CUDA launch carries",
                     spec->name, spec->ctx_size);
        return NULL;
    }
    int n = spec->ninputs;
    lm_tensor *target = NULL;
    if (out && out->dtype == p->outdt) { target = out; lm_retain(out); }
    if (!target && !(target = lm_empty_strided(p->ndim, p->shape, p->strides, p->outdt, LM_CUDA))) return NULL;

    lm_cuda_pw_args a;
    memset(&a, 0, sizeof a);
    lm_tensor stub[LM_MAX_OPS];
    lm_tensor *ops[LM_MAX_OPS], *owned[LM_MAX_OPS] = {NULL};
    ops[0] = target;
    int k = 0;
    for (; k < n; k++) {
        lm_tensor *in = ins[k];
        if (in->device != LM_CUDA) {   /* a number: by value; the stub only gives the iterator a 0-d operand */
            host_value(in, p->compute, &a.scalars[k + 1]);
            a.scalar_mask |= 1u << (k + 1);
            stub[k] = *target;
            stub[k].ndim = 0;
            ops[k + 1] = &stub[k];
            continue;
        }
        lm_tensor *c = lm_pointwise_input(in, p->compute, out);
        if (!c) break;
        ops[k + 1] = owned[k + 1] = c;
    }
    int err = k < n || lm_iter_init(&a.it, n + 1, ops, p->ndim, p->shape);
    if (!err) {
        lm_iter_order_by(&a.it, 0);
        if (ctx && spec->ctx_size) memcpy(a.ctx, ctx, spec->ctx_size);
        err = lm_cuda_check(fn(&a), spec->name);
    }
    for (int j = 1; j <= n; j++) lm_release(owned[j]);
    if (err) { lm_release(target); return NULL; }
    return lm_pointwise_result(out, target);
}

/* ---- reductions ------------------------------------------------------------
 * The input's dims split into kept and reduced, innermost first, each list
 * coalesced where neighbours are contiguous to each other and size-1 dims
 * dropped; the result is contiguous over the kept dims in order. */
static int push_dim(int64_t *shape, int64_t *strides, int n, int64_t size, int64_t stride) {
    if (size == 1) return n;
    if (n && strides[n - 1] * shape[n - 1] == stride) { shape[n - 1] *= size; return n; }
    shape[n] = size;
    strides[n] = stride;
    return n + 1;
}

void lm_cuda_red_geometry(const lm_tensor *x, const bool *red, lm_cuda_red_args *a) {
    int64_t item = (int64_t)lm_itemsize(x->dtype);
    a->nkept = a->nred = 0;
    a->count = 1;
    a->nout = 1;
    for (int d = x->ndim - 1; d >= 0; d--) {
        if (red[d]) {
            a->nred = push_dim(a->red_shape, a->red_strides, a->nred, x->shape[d], x->strides[d] * item);
            a->count *= x->shape[d];
        } else {
            a->nkept = push_dim(a->kept_shape, a->kept_strides, a->nkept, x->shape[d], x->strides[d] * item);
            a->nout *= x->shape[d];
        }
    }
}

static lm_tensor *cuda_reduce(const lm_reduce_spec *spec, const lm_reduce_plan *p, lm_tensor *self) {
    const lm_cuda_red_entry *row = find_row(spec, spec->key, true);
    /* float16/bfloat16 accumulated in float32: their own kernel reads them as stored */
    bool as_stored = self->dtype != p->acc && lm_dtype_work[self->dtype] == p->acc && row && row->fn[self->dtype];
    lm_cuda_red_fn fn = !row ? NULL : as_stored ? row->fn[self->dtype] : row->fn[p->acc];
    if (!fn) { no_kernel(spec->name, p->acc); return NULL; }
    lm_tensor *x = as_stored ? (lm_retain(self), self) : lm_cast(self, p->acc);
    lm_tensor *res = x ? lm_empty(p->ndim, p->shape, p->acc, LM_CUDA) : NULL;
    if (!res) { lm_release(x); return NULL; }
    lm_cuda_red_args a;
    memset(&a, 0, sizeof a);
    lm_cuda_red_geometry(x, p->red, &a);
    a.out = lm_bytes(res);
    a.in = lm_bytes(x);
    a.mean = spec->mean;
    int err = lm_cuda_check(fn(&a), spec->name);
    lm_release(x);
    if (err) { lm_release(res); return NULL; }
    return res;
}

/* ---- copies ---------------------------------------------------------------- */

static int cuda_copy(lm_tensor *dst, lm_tensor *src) {
    size_t nbytes = (size_t)lm_numel(dst) * lm_itemsize(dst->dtype);
    if (dst->dtype == src->dtype && lm_same_shape(dst, src) && lm_is_contiguous(dst) && lm_is_contiguous(src))
        return lm_cuda_check(B->memcpy(lm_bytes(dst), lm_bytes(src), nbytes, LM_CUDA_D2D), "copy");
    lm_cuda_pw_args a;
    memset(&a, 0, sizeof a);
    lm_tensor *ops[2] = {dst, src};
    if (lm_iter_init(&a.it, 2, ops, dst->ndim, dst->shape)) return -1;
    lm_iter_order_by(&a.it, 0);
    return lm_cuda_check(B->copy_cast(&a, dst->dtype, src->dtype), "copy");
}

/* dst (CUDA) <- one host element, broadcast */
static int fill_from_host(lm_tensor *dst, lm_tensor *src) {
    lm_cuda_pw_args a;
    memset(&a, 0, sizeof a);
    lm_tensor stub = *dst;
    stub.ndim = 0;
    lm_tensor *ops[2] = {dst, &stub};
    if (lm_iter_init(&a.it, 2, ops, dst->ndim, dst->shape)) return -1;
    lm_iter_order_by(&a.it, 0);
    a.scalar_mask = 2;
    memcpy(&a.scalars[1], lm_bytes(src), lm_itemsize(src->dtype));
    return lm_cuda_check(B->copy_cast(&a, dst->dtype, src->dtype), "copy");
}

static bool plain_pair(const lm_tensor *dst, const lm_tensor *src) {
    return dst->dtype == src->dtype && lm_same_shape(dst, src) && lm_is_contiguous(dst) && lm_is_contiguous(src);
}

int lm_copy_across(lm_tensor *dst, lm_tensor *src) {
    if (!B) return lm_set_error(LM_ERR_RUNTIME, "copy between %s and %s: CUDA is not initialized",
                                lm_device_name(src->device), lm_device_name(dst->device));
    int nd;
    int64_t shape[LM_MAX_DIMS];
    if (lm_broadcast_shapes(dst->ndim, dst->shape, src->ndim, src->shape, &nd, shape)) return -1;
    if (nd != dst->ndim || memcmp(shape, dst->shape, sizeof(int64_t) * (size_t)nd)) {
        char sa[256], sb[256];
        lm_format_shape(sa, sizeof sa, src->ndim, src->shape);
        lm_format_shape(sb, sizeof sb, dst->ndim, dst->shape);
        return lm_set_error(LM_ERR_VALUE, "source of shape %s cannot be broadcast to destination of shape %s", sa, sb);
    }
    if (lm_numel(dst) == 0) return 0;
    size_t nbytes = (size_t)lm_numel(dst) * lm_itemsize(dst->dtype);
    if (dst->device == LM_CUDA) {   /* host -> device */
        if (plain_pair(dst, src))
            return lm_cuda_check(B->memcpy(lm_bytes(dst), lm_bytes(src), nbytes, LM_CUDA_H2D), "copy to cuda");
        if (lm_numel(src) == 1) return fill_from_host(dst, src);
        lm_tensor *staging = lm_empty(dst->ndim, dst->shape, dst->dtype, LM_CPU);
        lm_tensor *dense = staging && !lm_is_contiguous(dst) ? lm_empty(dst->ndim, dst->shape, dst->dtype, LM_CUDA) : NULL;
        lm_tensor *land = dense ? dense : dst;
        int err = !staging || (!lm_is_contiguous(dst) && !dense) || lm_copy_into(staging, src) ||
                  lm_cuda_check(B->memcpy(lm_bytes(land), lm_bytes(staging), nbytes, LM_CUDA_H2D), "copy to cuda") ||
                  (dense && cuda_copy(dst, dense));
        lm_release(staging);
        lm_release(dense);
        return err ? -1 : 0;
    }
    /* device -> host: a dense device copy of src, down, then the CPU casts and broadcasts */
    size_t sbytes = (size_t)lm_numel(src) * lm_itemsize(src->dtype);
    if (plain_pair(dst, src))
        return lm_cuda_check(B->memcpy(lm_bytes(dst), lm_bytes(src), nbytes, LM_CUDA_D2H), "copy to cpu");
    lm_tensor *dense = lm_contiguous(src);
    lm_tensor *staging = dense ? lm_empty(src->ndim, src->shape, src->dtype, LM_CPU) : NULL;
    int err = !staging ||
              lm_cuda_check(B->memcpy(lm_bytes(staging), lm_bytes(dense), sbytes, LM_CUDA_D2H), "copy to cpu") ||
              lm_copy_into(dst, staging);
    lm_release(dense);
    lm_release(staging);
    return err ? -1 : 0;
}

/* ---- loading ----------------------------------------------------------------- */

static void zero_fn(void *p, size_t n) { B->memset0(p, n); }
static void copy_fn(void *dst, const void *src, size_t n) { B->memcpy(dst, src, n, LM_CUDA_D2D); }
static lm_allocator cuda_allocator = {"cuda", NULL, NULL, zero_fn, copy_fn};
static const lm_device_runners cuda_runners = {"cuda", cuda_pointwise, cuda_reduce, cuda_copy};

int lm_cuda_load(const char *path) {
    if (B) return 0;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return lm_set_error(LM_ERR_RUNTIME, "cannot load loom's CUDA library %s: %s", path, dlerror());
    const lm_cuda_backend *(*get)(void) = (const lm_cuda_backend *(*)(void))dlsym(lib, "lm_cuda_backend_get");
    const lm_cuda_backend *b = get ? get() : NULL;
    if (!b || b->abi_version != LM_CUDA_ABI_VERSION || b->num_dtypes != LM_NUM_DTYPES || b->max_dims != LM_MAX_DIMS)
        return lm_set_error(LM_ERR_RUNTIME, "%s is not the CUDA library of this build of loom (rebuild loom)", path);
    int n = 0, err = b->device_count(&n);
    if (err) return lm_set_error(LM_ERR_RUNTIME, "CUDA driver error: %s", b->error_string(err));
    if (n < 1) return lm_set_error(LM_ERR_RUNTIME, "No CUDA GPUs are available");
    B = b;
    cuda_allocator.alloc = b->malloc;
    cuda_allocator.free = b->free;
    lm_register_allocator(LM_CUDA, &cuda_allocator);
    return lm_register_runners(LM_CUDA, &cuda_runners);
}

int lm_cuda_device_count(void) {
    int n = 0;
    return B && !B->device_count(&n) ? n : 0;
}

int lm_cuda_synchronize(void) { return B ? lm_cuda_check(B->synchronize(), "synchronize") : 0; }

void lm_cuda_memory_stats(int64_t *out) {
    out[0] = out[1] = out[2] = 0;
    if (B) B->memory_stats(&out[0], &out[1], &out[2]);
}

void lm_cuda_reset_peak(void) { if (B) B->reset_peak(); }

int lm_cuda_empty_cache(void) { return B ? lm_cuda_check(B->empty_cache(), "empty_cache") : 0; }

int lm_cuda_blas_open(const char *path) {
    if (!B) return lm_set_error(LM_ERR_RUNTIME, "CUDA is not initialized");
    char msg[512] = "";
    return B->blas_open(path, msg, sizeof msg) ? lm_set_error(LM_ERR_RUNTIME, "%s", msg) : 0;
}

void lm_cuda_set_allow_tf32(int on) { if (B) B->set_allow_tf32(on); }

int lm_cuda_device_name(char *buf, size_t cap) {
    buf[0] = 0;
    return B ? lm_cuda_check(B->device_name(buf, cap), "get_device_name") : lm_set_error(LM_ERR_RUNTIME, "CUDA is not initialized");
}

int lm_cuda_mem_info(int64_t *out) {
    out[0] = out[1] = 0;
    return B ? lm_cuda_check(B->mem_info(&out[0], &out[1]), "mem_get_info") : lm_set_error(LM_ERR_RUNTIME, "CUDA is not initialized");
}

void *lm_cuda_event_create(void) {
    void *ev = NULL;
    if (!B) { lm_set_error(LM_ERR_RUNTIME, "CUDA is not initialized"); return NULL; }
    return lm_cuda_check(B->event_create(&ev), "Event") ? NULL : ev;
}

void lm_cuda_event_destroy(void *ev) { if (B) B->event_destroy(ev); }
int lm_cuda_event_record(void *ev) { return lm_cuda_check(B->event_record(ev), "Event.record"); }
int lm_cuda_event_synchronize(void *ev) { return lm_cuda_check(B->event_synchronize(ev), "Event.synchronize"); }

int lm_cuda_event_query(void *ev) {
    int r = B->event_query(ev);
    return r < 0 ? lm_cuda_check(-r, "Event.query") : r;
}

int lm_cuda_event_elapsed(void *start, void *end, float *ms) {
    return lm_cuda_check(B->event_elapsed(start, end, ms), "Event.elapsed_time");
}

/* page-locked copies of host tensors: storages freed through pinned_free, which is how
 * lm_is_pinned knows them */
static void pinned_free(void *p) { if (B) B->host_free(p); }

lm_tensor *lm_pin_memory(lm_tensor *t) {
    if (t->device != LM_CPU) { lm_set_error(LM_ERR_RUNTIME, "cannot pin '%s' memory: only dense CPU tensors can be pinned", lm_device_name(t->device)); return NULL; }
    if (!B) { lm_set_error(LM_ERR_RUNTIME, "pin_memory needs CUDA: CUDA is not initialized"); return NULL; }
    size_t nbytes = (size_t)lm_numel(t) * lm_itemsize(t->dtype);
    void *p = B->host_alloc(nbytes);
    if (!p) { lm_set_error(LM_ERR_MEMORY, "out of page-locked host memory (%zu bytes)", nbytes); return NULL; }
    int64_t strides[LM_MAX_DIMS];
    lm_contiguous_strides(t->ndim, t->shape, strides);
    lm_tensor *out = lm_from_blob(p, t->ndim, t->shape, strides, t->dtype, LM_CPU, pinned_free, p);
    if (!out) { B->host_free(p); return NULL; }
    if (lm_copy_into(out, t)) { lm_release(out); return NULL; }
    return out;
}

bool lm_is_pinned(const lm_tensor *t) { return t->storage->deleter == pinned_free; }
