/* The CPU's pointwise runner: carry out a plan with the shared strided
 * iterator, casting inputs to the compute dtype and reading a copy of an input
 * that partially overlaps the output. */
#include <string.h>
#include "device.h"

/* A generated loop vectorises only its contiguous case (and, binary, one input a single
 * element): the strided one calls the body element by element, which GCC leaves scalar.
 * So a strided inner loop runs the contiguous case over blocks instead: strided inputs
 * gathered into contiguous buffers, a strided output scattered from one. Gathering a
 * block before any of its results is stored keeps an output that exactly aliases an
 * input right (partial overlaps were copied before). */
#define BLOCK_BYTES 1024
#define MIN_BLOCKED 16     /* shorter rows (small trailing dims) cost more to gather than they gain */
/* Gathered while a cache line holds two or more of an operand's elements: further apart each
 * element is a line of its own and the loads outweigh the body (A.T + B's columns were 1.4x
 * slower gathered, exp of every 32nd float no faster). */
#define MAX_GATHER_STRIDE 32

typedef struct {
    lm_loop_fn fn;
    const void *ctx;
    int nops;
    int64_t item[LM_MAX_OPS];   /* each operand's element size in bytes */
    int64_t block;              /* elements per block: BLOCK_BYTES of the widest operand */
} blocked_loop;

/* fixed-size memcpy: one load and store per element, at any alignment */
#define COPY_STRIDED(W, dst, dstep, src, sstep, m) \
    for (int64_t i_ = 0; i_ < (m); i_++) memcpy((dst) + i_ * (dstep), (src) + i_ * (sstep), W)

/* every other element (a [::2] slice, a complex tensor's real or imaginary part): a step
 * the compiler knows, so it vectorises with shuffles */
#define COPY_HALF(T, dst, src, m, gather) do { \
        T *o_ = (T *)(dst); const T *x_ = (const T *)(src); \
        if (gather) for (int64_t i_ = 0; i_ < (m); i_++) o_[i_] = x_[2 * i_]; \
        else for (int64_t i_ = 0; i_ < (m); i_++) o_[2 * i_] = x_[i_]; \
    } while (0)

static void copy_strided(char *dst, int64_t dstep, const char *src, int64_t sstep, int64_t m, int64_t item) {
    if ((sstep == 2 * item && dstep == item) || (dstep == 2 * item && sstep == item)) {
        bool gather = sstep == 2 * item;
        switch (item) {
        case 1: COPY_HALF(uint8_t, dst, src, m, gather); return;
        case 2: COPY_HALF(uint16_t, dst, src, m, gather); return;   /* float16 lt's [::2] inputs: 2.2x */
        case 4: COPY_HALF(uint32_t, dst, src, m, gather); return;
        case 8: COPY_HALF(uint64_t, dst, src, m, gather); return;
        }
    }
    switch (item) {
    case 1: COPY_STRIDED(1, dst, dstep, src, sstep, m); break;
    case 2: COPY_STRIDED(2, dst, dstep, src, sstep, m); break;
    case 4: COPY_STRIDED(4, dst, dstep, src, sstep, m); break;
    case 8: COPY_STRIDED(8, dst, dstep, src, sstep, m); break;
    case 16: COPY_STRIDED(16, dst, dstep, src, sstep, m); break;
    default: COPY_STRIDED((size_t)item, dst, dstep, src, sstep, m);
    }
}

/* whether to call the loop as it is: its own vectorised path takes these strides (contiguous;
 * binary, one input a single element), the row is short, or an operand is too far apart */
static bool call_directly(const blocked_loop *B, const int64_t *s, int64_t n) {
    bool unit = true;
    for (int k = 0; k < B->nops; k++) {
        unit = unit && s[k] == B->item[k];
        if (s[k] > MAX_GATHER_STRIDE || s[k] < -MAX_GATHER_STRIDE) return true;
    }
    if (unit || n < MIN_BLOCKED) return true;
    return B->nops == 3 && s[0] == B->item[0] &&
           ((s[1] == 0 && s[2] == B->item[2]) || (s[2] == 0 && s[1] == B->item[1]));
}

static void run_blocked(char **d, const int64_t *s, int64_t n, const void *vb) {
    const blocked_loop *B = vb;
    if (call_directly(B, s, n)) { B->fn(d, s, n, B->ctx); return; }
    _Alignas(64) char buf[LM_MAX_OPS][BLOCK_BYTES];
    char *bd[LM_MAX_OPS];
    int64_t bs[LM_MAX_OPS];
    enum { DIRECT, GATHER, HELD } how[LM_MAX_OPS];   /* HELD: a single element, filled in once */
    bool kept_scalar = false;
    for (int k = 0; k < B->nops; k++) {
        bs[k] = B->item[k];
        how[k] = s[k] == B->item[k] ? DIRECT : GATHER;
        if (k == 0 || s[k] != 0) continue;
        if (B->nops == 3 && !kept_scalar) {   /* binary: the loop's own path for one single element */
            kept_scalar = true;
            how[k] = DIRECT;
            bs[k] = 0;
        } else {
            how[k] = HELD;
            copy_strided(buf[k], B->item[k], d[k], 0, n < B->block ? n : B->block, B->item[k]);
            bd[k] = buf[k];
        }
    }
    for (int64_t i0 = 0; i0 < n; i0 += B->block) {
        int64_t m = n - i0 < B->block ? n - i0 : B->block;
        for (int k = 0; k < B->nops; k++) {
            if (how[k] == DIRECT) bd[k] = d[k] + i0 * s[k];
            else if (how[k] == GATHER) bd[k] = buf[k];
        }
        for (int k = 1; k < B->nops; k++)
            if (how[k] == GATHER) copy_strided(buf[k], B->item[k], d[k] + i0 * s[k], s[k], m, B->item[k]);
        B->fn(bd, bs, m, B->ctx);
        if (how[0] == GATHER) copy_strided(d[0] + i0 * s[0], s[0], buf[0], B->item[0], m, B->item[0]);
    }
}

/* inputs in the compute dtype, the output in its own */
static blocked_loop blocked(lm_loop_fn fn, const void *ctx, int nops, int outdt, int compute) {
    blocked_loop B = {fn, ctx, nops, {0}, 0};
    for (int k = 0; k < nops; k++) B.item[k] = (int64_t)lm_itemsize(k ? compute : outdt);
    B.block = BLOCK_BYTES / (B.item[0] > B.item[1] ? B.item[0] : B.item[1]);
    return B;
}

/* laid out as the plan's result: the same strides along every dim that has more than one element */
static bool as_result(const lm_tensor *t, const lm_pointwise_plan *p) {
    if (t->ndim != p->ndim) return false;
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] > 1 && t->strides[d] != p->strides[d]) return false;
    return true;
}

/* The common case, kept free of casts and the general iterator: fresh output,
 * inputs already in the compute dtype, each at the output's shape and dense
 * layout (contiguous, or all alike transposed) or a single element: one run
 * over memory. NULL (no error set) when it does not apply. */
static lm_tensor *fast_path(const lm_pointwise_spec *spec, const lm_pointwise_plan *p, lm_tensor **ins,
                            const void *ctx) {
    int n = spec->ninputs, big = 0, compute = p->compute;
    for (int k = 1; k < n; k++) if (ins[k]->ndim > ins[big]->ndim) big = k;
    const lm_tensor *ref = ins[big];
    int64_t numel = lm_numel(ref);
    lm_iter it;
    double scalars[LM_MAX_OPS];   /* single elements converted to the compute dtype */
    it.nops = n + 1;
    it.ndim = 1;
    it.numel = numel;
    it.shape[0] = numel;
    for (int k = 0; k < n; k++) {
        const lm_tensor *t = ins[k];
        it.data[k + 1] = lm_bytes(t);
        if (t->dtype == compute && (t == ref || lm_same_shape(t, ref)) && as_result(t, p)) {
            it.strides[0][k + 1] = (int64_t)lm_itemsize(compute);
        } else if (lm_numel(t) == 1 && t->ndim <= ref->ndim && t != ref) {
            it.strides[0][k + 1] = 0;
            if (t->dtype != compute) {
                char *src = lm_bytes(t), *dst = (char *)&scalars[k];
                char *d[2] = {dst, src};
                int64_t st[2] = {0, 0};
                lm_cast_loop(compute, t->dtype)(d, st, 1, NULL);
                it.data[k + 1] = dst;
            }
        } else {
            return NULL;
        }
    }
    lm_tensor *out = lm_empty_strided(ref->ndim, ref->shape, p->strides, p->outdt, LM_CPU);
    if (!out) return NULL;
    it.data[0] = lm_bytes(out);
    it.strides[0][0] = (int64_t)lm_itemsize(p->outdt);
    blocked_loop B = blocked(spec->loops[LM_CPU][compute], ctx, n + 1, p->outdt, compute);
    lm_iter_run_parallel(&it, run_blocked, &B, 0);
    return out;
}

lm_tensor *lm_run_cpu_pointwise(const lm_pointwise_spec *spec, const lm_pointwise_plan *p, lm_tensor **ins,
                                lm_tensor *out, const void *ctx) {
    int n = spec->ninputs;
    if (!out) {
        lm_tensor *r = fast_path(spec, p, ins, ctx);
        if (r || lm_error_code()) return r;
    }
    lm_tensor *target = NULL;    /* what the loop writes */
    if (out && out->dtype == p->outdt) { target = out; lm_retain(out); }
    if (!target && !(target = lm_empty_strided(p->ndim, p->shape, p->strides, p->outdt, LM_CPU))) return NULL;

    lm_tensor *ops[LM_MAX_OPS];
    ops[0] = target;
    int k = 0;
    for (; k < n; k++) {
        lm_tensor *c = lm_pointwise_input(ins[k], p->compute, out);
        if (!c) break;
        ops[k + 1] = c;
    }
    lm_iter it;
    int err = k < n || lm_iter_init(&it, n + 1, ops, p->ndim, p->shape);
    if (!err) {
        lm_iter_order_by(&it, 0);
        blocked_loop B = blocked(spec->loops[LM_CPU][p->compute], ctx, n + 1, p->outdt, p->compute);
        lm_iter_run_parallel(&it, run_blocked, &B, -1);
    }
    for (int j = 0; j < k; j++) lm_release(ops[j + 1]);
    if (err) { lm_release(target); return NULL; }
    return lm_pointwise_result(out, target);
}
