/* pad and its backward, as torch.nn.functional.pad: self grown (or, by negative
 * pads, cropped) along its last dims, the new border a constant or read from self
 * by reflection, replication or wrap-around. Every mode is a map, per padded dim,
 * from an output index to the input index it reads (-1: the constant), so one
 * gather serves all four, and the backward adds each gradient back where it was
 * read (reflected and replicated borders read an input element more than once). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "iter.h"

enum { PAD_CONSTANT, PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR, PAD_MODES };
static const char *const MODE_NAMES[PAD_MODES] = {"constant", "reflect", "replicate", "circular"};
#define PAD_LIMIT ((int64_t)1 << 60)

typedef struct {
    int mode, ndim, first;              /* dims first..ndim-1 are padded (pad lists them last dim first) */
    int64_t in[LM_MAX_DIMS], out[LM_MAX_DIMS];
    int64_t *map[LM_MAX_DIMS];          /* for padded dims: out[d] input indices, -1 for the constant */
    int64_t *maps;                      /* the one allocation holding them */
} padgeom;

static int64_t min0(int64_t v) { return v < 0 ? v : 0; }
static int64_t max0(int64_t v) { return v > 0 ? v : 0; }

static int64_t source(int mode, int64_t o, int64_t n, int64_t l, int64_t r) {
    int64_t i = o - l;
    switch (mode) {
    case PAD_CONSTANT: return i >= 0 && i < n ? i : -1;
    case PAD_REFLECT:   /* about the input's own edges, also when the other side is cropped (as PyTorch) */
        if (i < 0) i = -i;
        return i >= n ? 2 * (n - 1) - i : i;
    case PAD_REPLICATE: return i < 0 ? 0 : i >= n ? n - 1 : i;
    default: {          /* circular wraps around what is left after cropping (as PyTorch) */
        int64_t m = n + min0(l) + min0(r), j = (o - max0(l)) % m;
        return -min0(l) + (j < 0 ? j + m : j);
    }
    }
}

static int parse_mode(const char *mode) {
    for (int m = 0; m < PAD_MODES; m++)
        if (!strcmp(mode, MODE_NAMES[m])) return m;
    return lm_set_error(LM_ERR_NOTIMPL, "Unrecognised padding mode %s (expected 'constant', 'reflect', 'replicate' "
                        "or 'circular')", mode);
}

/* PyTorch's rules: any dims for a constant; for the others the last 1, 2 or 3
 * dims of an input with one or two more, whose dims but the batch are non-empty */
static int check_dims(const padgeom *G, int64_t pad_len) {
    int k = G->ndim - G->first;
    if (G->mode == PAD_CONSTANT) return 0;
    if (k < 1 || k > 3 || G->ndim < k + 1 || G->ndim > k + 2)
        return lm_set_error(LM_ERR_NOTIMPL, "Padding size %lld is not supported for %dD input tensor.\n"
                            "Supported combinations for non-constant padding:\n"
                            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)", (long long)pad_len, G->ndim);
    if (G->mode == PAD_CIRCULAR) return 0;
    for (int d = G->ndim == k + 2; d < G->ndim; d++)
        if (G->in[d] == 0) {
            char s[256];
            lm_format_shape(s, sizeof s, G->ndim, G->in);
            return lm_set_error(LM_ERR_VALUE, "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and "
                                "other non-zero dimensions for input, but got: %s", k + 1, k + 2, s);
        }
    return 0;
}

static int check_sides(const padgeom *G, int d, int64_t l, int64_t r) {
    int64_t n = G->in[d], m = n + min0(l) + min0(r);
    const char *why = NULL;
    if ((G->mode == PAD_CONSTANT || G->mode == PAD_CIRCULAR) && m < 0)
        why = "negative padding (%lld, %lld) removes more than the size of dimension %d of input %s";
    else if (G->mode == PAD_REFLECT && (l >= n || r >= n))
        why = "Padding size should be less than the corresponding input dimension, but got: padding (%lld, %lld) "
              "at dimension %d of input %s";
    else if (G->mode == PAD_CIRCULAR && (l > m || r > m))   /* m: what the negative pads leave to wrap around */
        why = "Padding value causes wrapping around more than once: padding (%lld, %lld) at dimension %d of input %s "
              "is larger than what is left to wrap around after cropping";
    if (!why) return 0;
    char s[256];
    lm_format_shape(s, sizeof s, G->ndim, G->in);
    return lm_set_error(LM_ERR_VALUE, why, (long long)l, (long long)r, d, s);
}

/* reflect and replicate need at least one output element along each padded dim */
static int check_not_too_small(const padgeom *G) {
    bool small = false;
    for (int d = G->first; d < G->ndim; d++) small |= G->out[d] < 1;
    if (!small || G->mode == PAD_CONSTANT || G->mode == PAD_CIRCULAR) return 0;
    static const char *const names = "DHW";
    char a[128] = "", b[128] = "";
    size_t la = 0, lb = 0;
    for (int d = G->first; d < G->ndim; d++) {
        char c = names[3 - (G->ndim - d)];
        const char *sep = d > G->first ? ", " : "";
        la += (size_t)snprintf(a + la, sizeof a - la, "%s%c: %lld", sep, c, (long long)G->in[d]);
        lb += (size_t)snprintf(b + lb, sizeof b - lb, "%s%c: %lld", sep, c, (long long)G->out[d]);
    }
    return lm_set_error(LM_ERR_VALUE, "input (%s) is too small. Calculated output %s", a, b);
}

/* checks everything and builds the index maps; the caller frees G->maps */
static int pad_geom(padgeom *G, int ndim, const int64_t *in, const int64_t *pad, int64_t pad_len, const char *mode) {
    memset(G, 0, sizeof *G);
    if ((G->mode = parse_mode(mode)) < 0) return -1;
    if (pad_len % 2) return lm_set_error(LM_ERR_VALUE, "Padding length must be divisible by 2");
    if (pad_len > 2 * (int64_t)ndim)
        return lm_set_error(LM_ERR_VALUE, "Padding length should be less than or equal to two times the input "
                            "dimension but got padding length %lld and input of dimension %d", (long long)pad_len, ndim);
    for (int64_t i = 0; i < pad_len; i++)   /* bounds that keep the index arithmetic below from overflowing */
        if (pad[i] < -PAD_LIMIT || pad[i] > PAD_LIMIT)
            return lm_set_error(LM_ERR_VALUE, "padding %lld is out of range (at most 2^60 either way)", (long long)pad[i]);
    G->ndim = ndim;
    G->first = ndim - (int)(pad_len / 2);
    memcpy(G->in, in, sizeof(int64_t) * (size_t)ndim);
    memcpy(G->out, in, sizeof(int64_t) * (size_t)ndim);
    if (check_dims(G, pad_len)) return -1;
    int64_t total = 0;
    for (int d = ndim - 1; d >= G->first; d--) {   /* in pad's order, so the first bad pair is reported */
        int64_t l = pad[2 * (ndim - 1 - d)], r = pad[2 * (ndim - 1 - d) + 1];
        if (check_sides(G, d, l, r)) return -1;
        if (__builtin_add_overflow(in[d], l + r, &G->out[d]))
            return lm_set_error(LM_ERR_VALUE, "padding (%lld, %lld) of dimension %d overflows int64",
                                (long long)l, (long long)r, d);
        total += max0(G->out[d]);
    }
    if (check_not_too_small(G) || lm_check_shape(ndim, G->out)) return -1;
    bool empty = false;
    for (int d = 0; d < ndim; d++) empty |= G->out[d] == 0;
    if (G->first == ndim || empty) return 0;   /* no maps: nothing is read */
    int64_t *maps = G->maps = total < PAD_LIMIT ? malloc(sizeof(int64_t) * (size_t)(total ? total : 1)) : NULL;
    if (!maps) return lm_set_error(LM_ERR_MEMORY, "out of memory");
    for (int d = G->first; d < ndim; d++) {
        int64_t l = pad[2 * (ndim - 1 - d)], r = pad[2 * (ndim - 1 - d) + 1];
        G->map[d] = maps;
        for (int64_t o = 0; o < G->out[d]; o++) maps[o] = source(G->mode, o, in[d], l, r);
        maps += G->out[d];
    }
    return 0;
}

/* Rows are indices over all dims but the last. Where output row `row` starts in a
 * tensor of the output's shape, and where it reads in the input (of the given
 * strides), -1 when a padded dim puts the whole row in the constant. */
static int64_t row_offset(const padgeom *G, int64_t row, const int64_t *strides) {
    int64_t at = 0;
    for (int d = G->ndim - 2; d >= 0; d--) {
        at += row % G->out[d] * strides[d];
        row /= G->out[d];
    }
    return at;
}

static int64_t row_source(const padgeom *G, int64_t row, const int64_t *strides) {
    int64_t at = 0;
    for (int d = G->ndim - 2; d >= 0; d--) {
        int64_t o = row % G->out[d];
        row /= G->out[d];
        int64_t i = d >= G->first ? G->map[d][o] : o;
        if (i < 0) return -1;
        at += i * strides[d];
    }
    return at;
}

/* what a range of rows (forward) or planes (backward) needs */
typedef struct {
    const padgeom *G;
    const char *src;                  /* self, or grad_output */
    char *dst;                        /* out, or dx */
    const int64_t *sstrides;          /* src's strides */
    int64_t W, sw;                    /* output row length; src's last-dim stride */
    const int64_t *wmap;              /* the last dim's map */
    lm_scalar value;                  /* the constant (forward) */
    int64_t rows_per_plane;           /* backward: output rows per plane of dx */
    const int64_t *cstrides;          /* backward: dx's (contiguous) strides */
} job;

/* output rows [begin, end): each gathers its row of self, or the constant */
#define FORWARD(T, NAME)                                                                                              \
    static void NAME(int64_t begin, int64_t end, void *vj) {                                                          \
        const job *J = vj;                                                                                            \
        const lm_scalar value = J->value;                                                                             \
        const T fill = value.kind < 0 ? (T)0 : value.kind == 2 ? (T)value.d                                          \
                     : value.kind == 4 ? (T)(uint64_t)value.i : (T)value.i;                                          \
        const T *src = (const T *)J->src;                                                                             \
        T *dst = (T *)J->dst;                                                                                         \
        const int64_t W = J->W, sw = J->sw, *wmap = J->wmap;                                                          \
        for (int64_t row = begin; row < end; row++) {                                                                 \
            const int64_t at = row_source(J->G, row, J->sstrides);                                                    \
            T *o = dst + row * W;                                                                                     \
            for (int64_t j = 0; j < W; j++)                                                                           \
                o[j] = at < 0 || wmap[j] < 0 ? fill : src[at + wmap[j] * sw];                                         \
        }                                                                                                             \
    }
#define FORWARD_OF(E, T, N) FORWARD(T, fwd_rows_##N)
LM_FOR_EACH_DTYPE(FORWARD_OF)
#define FORWARD_ENTRY(E, T, N) [E] = fwd_rows_##N,
static const lm_range_fn fwd_rows[LM_NUM_DTYPES] = {LM_FOR_EACH_DTYPE(FORWARD_ENTRY)};

/* planes [begin, end) of dx: output rows of one plane add into that plane only,
 * so planes split over threads without two writing one element */
#define BACKWARD(T)                                                                                                   \
    static void bwd_planes_##T(int64_t begin, int64_t end, void *vj) {                                                \
        const job *J = vj;                                                                                            \
        const T *g = (const T *)J->src;                                                                               \
        T *dst = (T *)J->dst;                                                                                         \
        const int64_t W = J->W, gw = J->sw, *wmap = J->wmap, rows_per_plane = J->rows_per_plane;                      \
        for (int64_t p = begin; p < end; p++)                                                                         \
            for (int64_t row = p * rows_per_plane; row < (p + 1) * rows_per_plane; row++) {                           \
                const int64_t at = row_source(J->G, row, J->cstrides);                                                \
                if (at < 0) continue;                                                                                 \
                const T *gr = g + row_offset(J->G, row, J->sstrides);                                                 \
                T *d = dst + at;                                                                                      \
                for (int64_t j = 0; j < W; j++)                                                                       \
                    if (wmap[j] >= 0) d[wmap[j]] += gr[j * gw];                                                       \
            }                                                                                                         \
    }
BACKWARD(float)
BACKWARD(double)

static int fill_value(lm_scalar v, int dtype) {
    if (v.kind < 0 || !lm_dtype_valid(dtype)) return 0;
    bool ok = true;
    if (lm_is_floating(dtype)) {
        double max = lm_dtype_float_max[dtype];
        ok = v.kind != 2 || max == 0 || !isfinite(v.d) || fabs(v.d) <= max;
    } else if (lm_is_integral(dtype, false)) {
        double lo = lm_dtype_int_lo[dtype], hi = lm_dtype_int_hi[dtype];   /* [lo, hi) */
        bool wide = lm_itemsize(dtype) == 8;
        if (v.kind != 2)
            ok = wide || (v.i >= (int64_t)lo && v.i < (int64_t)hi);
        else   /* integers take the value truncated, which must be in range (2^63 itself is not) */
            ok = isfinite(v.d) && trunc(v.d) >= lo && (wide ? v.d < hi : trunc(v.d) < hi);
    }
    return ok ? 0 : lm_set_error(LM_ERR_VALUE, "value cannot be converted to type %s without overflow",
                                 lm_dtype_name(dtype));
}

lm_tensor *lm_cpu_pad(lm_tensor *self, const int64_t *pad, int64_t pad_len, const char *mode, lm_scalar value) {
    padgeom G;
    if (pad_geom(&G, self->ndim, self->shape, pad, pad_len, mode)) return NULL;
    lm_tensor *out = NULL;
    if (G.mode != PAD_CONSTANT && value.kind >= 0 && lm_scalar_f64(value) != 0)
        lm_set_error(LM_ERR_VALUE, "Padding mode \"%s\" doesn't take in value argument", mode);
    else if (!fill_value(value, self->dtype))
        out = lm_empty(G.ndim, G.out, self->dtype, self->device);
    if (!out || G.first == G.ndim) {   /* nothing padded: a copy */
        if (out && lm_copy_into(out, self)) { lm_release(out); out = NULL; }
        free(G.maps);
        return out;
    }
    const int last = G.ndim - 1;
    const int64_t W = G.out[last], rows = W ? lm_numel(out) / W : 0, sw = self->strides[last];
    const int64_t *wmap = G.map[last];
    job J = {&G, lm_bytes(self), lm_bytes(out), self->strides, W, sw, wmap, value, 0, NULL};
    lm_parallel_for(rows, lm_numel(out), fwd_rows[self->dtype], &J);
    free(G.maps);
    return out;
}

/* serves: floating */
lm_tensor *lm_cpu_pad_backward(lm_tensor *grad_output, const int64_t *input_size, int64_t input_size_len,
                               const int64_t *pad, int64_t pad_len, const char *mode) {
    if (lm_check_shape((int)input_size_len, input_size)) return NULL;
    padgeom G;
    if (pad_geom(&G, (int)input_size_len, input_size, pad, pad_len, mode)) return NULL;
    if (grad_output->ndim != G.ndim || memcmp(grad_output->shape, G.out, sizeof(int64_t) * (size_t)G.ndim)) {
        char a[256], b[256];
        lm_format_shape(a, sizeof a, grad_output->ndim, grad_output->shape);
        lm_format_shape(b, sizeof b, G.ndim, G.out);
        lm_set_error(LM_ERR_VALUE, "grad_output of shape %s does not match the padded shape %s", a, b);
        free(G.maps);
        return NULL;
    }
    lm_tensor *dx = lm_empty(G.ndim, G.in, grad_output->dtype, grad_output->device);
    if (!dx || G.first == G.ndim) {
        if (dx && lm_copy_into(dx, grad_output)) { lm_release(dx); dx = NULL; }
        free(G.maps);
        return dx;
    }
    memset(lm_bytes(dx), 0, lm_itemsize(dx->dtype) * (size_t)lm_numel(dx));
    if (!G.maps) return dx;   /* an empty grad_output */
    /* output rows of one plane (an index over the unpadded leading dims) add into that
     * plane only, so planes split over threads without two writing one element */
    const int last = G.ndim - 1;
    int64_t planes = 1, rows_per_plane = 1;
    for (int d = 0; d < G.first; d++) planes *= G.in[d];
    for (int d = G.first; d < last; d++) rows_per_plane *= G.out[d];
    const int64_t W = G.out[last], gw = grad_output->strides[last], *wmap = G.map[last];
    int64_t cstrides[LM_MAX_DIMS];
    lm_contiguous_strides(G.ndim, G.in, cstrides);
    job J = {&G, lm_bytes(grad_output), lm_bytes(dx), grad_output->strides, W, gw, wmap, {0, 0, -1}, rows_per_plane,
             cstrides};
    lm_parallel_for(planes, lm_numel(grad_output), dx->dtype == LM_FLOAT32 ? bwd_planes_float : bwd_planes_double, &J);
    free(G.maps);
    return dx;
}
