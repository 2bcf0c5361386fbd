/* nll_loss and its backward: pick -weight[t] * self[n, t] per target over
 * (N, C), (C,) or (N, C, d1, ...) inputs, reduced as asked. */
#include <math.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "alloc.h"
#include "cuda_host.h"

enum { RED_NONE, RED_MEAN, RED_SUM };

int lm_reduction_code(const char *reduction) {
    if (!strcmp(reduction, "none")) return RED_NONE;
    if (!strcmp(reduction, "mean")) return RED_MEAN;
    if (!strcmp(reduction, "sum")) return RED_SUM;
    return lm_set_error(LM_ERR_VALUE, "%s is not a valid value for reduction (use 'none', 'mean' or 'sum')", reduction);
}

typedef struct { int64_t N, C, D; int red; } nll_geom;

static int nll_check(lm_tensor *self, lm_tensor *target, lm_tensor *weight, const char *reduction, nll_geom *G) {
    if ((G->red = lm_reduction_code(reduction)) < 0) return -1;
    if (self->ndim < 1) return lm_set_error(LM_ERR_VALUE, "Expected 1 or more dimensions (got 0)");
    int cdim = self->ndim == 1 ? 0 : 1;
    G->C = self->shape[cdim];
    G->N = self->ndim == 1 ? 1 : self->shape[0];
    G->D = 1;
    for (int k = 2; k < self->ndim; k++) G->D *= self->shape[k];
    if (self->ndim >= 2 && (target->ndim < 1 || target->shape[0] != self->shape[0]))
        return lm_set_error(LM_ERR_VALUE, "Expected input batch_size (%lld) to match target batch_size (%lld).",
                            (long long)self->shape[0], (long long)(target->ndim ? target->shape[0] : 1));
    bool ok = target->ndim == (self->ndim == 1 ? 0 : self->ndim - 1);
    for (int k = 0; ok && k < target->ndim; k++) ok = target->shape[k] == self->shape[k == 0 ? 0 : k + 1];
    if (!ok) {
        int64_t want[LM_MAX_DIMS];
        int n = 0;
        for (int k = 0; k < self->ndim; k++) if (k != cdim) want[n++] = self->shape[k];
        char a[128], b[128];
        lm_format_shape(a, sizeof a, n, want);
        lm_format_shape(b, sizeof b, target->ndim, target->shape);
        return lm_set_error(LM_ERR_VALUE, "Expected target size %s, got %s", a, b);
    }
    if (weight && (weight->ndim != 1 || weight->shape[0] != G->C)) {
        char w[128];
        lm_format_shape(w, sizeof w, weight->ndim, weight->shape);
        return lm_set_error(LM_ERR_VALUE, "weight tensor should be defined either for all %lld classes or no classes but "
                            "got weight tensor of shape: %s", (long long)G->C, w);
    }
    if (weight && weight->dtype != self->dtype)
        return lm_set_error(LM_ERR_TYPE, "weight must have the input's dtype %s, got %s", lm_dtype_name(self->dtype),
                            lm_dtype_name(weight->dtype));
    return 0;
}

/* contiguous int64 class indices (uint8 targets are accepted, as PyTorch does) */
static lm_tensor *targets64(lm_tensor *target) {
    lm_tensor *c = lm_cast(target, LM_INT64);
    lm_tensor *t = c ? lm_contiguous(c) : NULL;
    lm_release(c);
    return t;
}

static int bad_target(int64_t t, int64_t C) {
    return lm_set_error(LM_ERR_INDEX, "Target %lld is out of bounds.", (long long)t);
}

/* On a device: the targets (and weights) are checked, and the mean's weight total taken, on
 * host copies of them (short vectors); the elements stay on the device. */
static int device_targets(lm_tensor *t, lm_tensor *w, const nll_geom *G, int64_t ignore_index, double *wsum) {
    lm_tensor *ht = lm_to_host(t), *hw = w && ht ? lm_to_host(w) : NULL;
    int err = !ht || (w && !hw);
    *wsum = 0;
    for (int64_t k = 0; !err && k < G->N * G->D; k++) {
        int64_t c = ((const int64_t *)lm_bytes(ht))[k];
        if (c == ignore_index) continue;
        if (c < 0 || c >= G->C) { err = bad_target(c, G->C); break; }
        *wsum += !hw ? 1.0 : hw->dtype == LM_FLOAT32 ? (double)((const float *)lm_bytes(hw))[c]
                                                      : ((const double *)lm_bytes(hw))[c];
    }
    lm_release(ht);
    lm_release(hw);
    return err ? -1 : 0;
}

static lm_tensor *device_nll(lm_tensor *self, const nll_geom *G, lm_tensor *x, lm_tensor *t, lm_tensor *w,
                             int64_t ignore_index, lm_tensor *out) {
    double wsum;
    int64_t n = G->N * G->D;
    if (device_targets(t, w, G, ignore_index, &wsum)) { lm_release(out); return NULL; }
    lm_tensor *vals = G->red != RED_NONE ? lm_empty(1, &n, self->dtype, self->device) : NULL;
    int err = (G->red != RED_NONE && !vals) ||
              lm_cuda_nll_run(self->dtype, false, G->N, G->C, G->D, lm_bytes(x), (const int64_t *)lm_bytes(t),
                              w ? lm_bytes(w) : NULL, ignore_index, G->red, G->red == RED_MEAN ? 1.0 / wsum : 1.0,
                              vals ? lm_bytes(vals) : NULL, lm_bytes(out));
    lm_release(vals);
    if (err) { lm_release(out); return NULL; }
    return out;
}

/* serves: floating */
lm_tensor *lm_cpu_nll_loss(lm_tensor *self, lm_tensor *target, lm_tensor *weight, const char *reduction,
                           int64_t ignore_index) {
    nll_geom G;
    if (nll_check(self, target, weight, reduction, &G)) return NULL;
    lm_tensor *x = lm_contiguous(self), *t = targets64(target), *w = weight ? lm_contiguous(weight) : NULL;
    lm_tensor *out = NULL;
    if (!x || !t || (weight && !w)) goto done;
    out = G.red == RED_NONE ? lm_empty(target->ndim, target->shape, self->dtype, self->device)
                            : lm_empty(0, NULL, self->dtype, self->device);
    if (!out) goto done;
    if (self->device == LM_CUDA) {
        out = device_nll(self, &G, x, t, w, ignore_index, out);
        goto done;
    }
    const int64_t *tp = (const int64_t *)lm_bytes(t);
    int err = 0;
    LM_DISPATCH_FLOAT(self->dtype, T, ,
        const T *xp = (const T *)lm_bytes(x), *wp = w ? (const T *)lm_bytes(w) : NULL;
        T *op = (T *)lm_bytes(out);
        double total = 0, wsum = 0;
        for (int64_t n = 0; n < G.N && !err; n++)
            for (int64_t d = 0; d < G.D; d++) {
                int64_t k = n * G.D + d, c = tp[k];
                if (c == ignore_index) { if (G.red == RED_NONE) op[k] = 0; continue; }
                if (c < 0 || c >= G.C) { err = bad_target(c, G.C); break; }
                T wc = wp ? wp[c] : (T)1;
                T v = -wc * xp[(n * G.C + c) * G.D + d];
                if (G.red == RED_NONE) op[k] = v;
                else { total += v; wsum += wc; }
            }
        if (G.red == RED_SUM) op[0] = (T)total;
        if (G.red == RED_MEAN) op[0] = (T)(total / wsum);   /* all ignored: 0/0, NaN as PyTorch */
    )
    if (err) { lm_release(out); out = NULL; }
done:
    lm_release(x); lm_release(t); lm_release(w);
    return out;
}

/* serves: floating */
lm_tensor *lm_cpu_nll_loss_backward(lm_tensor *grad_output, lm_tensor *self, lm_tensor *target, lm_tensor *weight,
                                    const char *reduction, int64_t ignore_index) {
    nll_geom G;
    if (nll_check(self, target, weight, reduction, &G)) return NULL;
    if (G.red == RED_NONE ? !lm_same_shape(grad_output, target) : grad_output->ndim != 0) {
        lm_set_error(LM_ERR_VALUE, "grad_output must be shaped like %s", G.red == RED_NONE ? "target" : "a 0-D loss");
        return NULL;
    }
    if (grad_output->dtype != self->dtype) {
        lm_set_error(LM_ERR_TYPE, "grad_output must have the input's dtype");
        return NULL;
    }
    lm_tensor *g = lm_contiguous(grad_output), *t = targets64(target), *w = weight ? lm_contiguous(weight) : NULL;
    lm_tensor *dx = NULL;
    if (!g || !t || (weight && !w)) goto done;
    dx = lm_empty(self->ndim, self->shape, self->dtype, self->device);
    if (!dx) goto done;
    lm_allocator_for(dx->device)->zero(lm_bytes(dx), (size_t)lm_numel(dx) * lm_itemsize(dx->dtype));
    if (self->device == LM_CUDA) {
        double wsum;
        if (device_targets(t, w, &G, ignore_index, &wsum) ||
            lm_cuda_nll_run(self->dtype, true, G.N, G.C, G.D, lm_bytes(g), (const int64_t *)lm_bytes(t),
                            w ? lm_bytes(w) : NULL, ignore_index, G.red, G.red == RED_MEAN ? 1.0 / wsum : 1.0, NULL,
                            lm_bytes(dx))) {
            lm_release(dx);
            dx = NULL;
        }
        goto done;
    }
    const int64_t *tp = (const int64_t *)lm_bytes(t);
    int err = 0;
    LM_DISPATCH_FLOAT(self->dtype, T, ,
        const T *gp = (const T *)lm_bytes(g), *wp = w ? (const T *)lm_bytes(w) : NULL;
        T *dp = (T *)lm_bytes(dx);
        double wsum = 0;
        if (G.red == RED_MEAN)
            for (int64_t k = 0; k < G.N * G.D && !err; k++) {
                int64_t c = tp[k];
                if (c == ignore_index) continue;
                if (c < 0 || c >= G.C) { err = bad_target(c, G.C); break; }
                wsum += wp ? wp[c] : 1;
            }
        T scale = G.red == RED_MEAN ? (T)(1.0 / wsum) : (T)1;
        for (int64_t n = 0; n < G.N && !err; n++)
            for (int64_t d = 0; d < G.D; d++) {
                int64_t k = n * G.D + d, c = tp[k];
                if (c == ignore_index) continue;
                if (c < 0 || c >= G.C) { err = bad_target(c, G.C); break; }
                T gv = G.red == RED_NONE ? gp[k] : gp[0];
                dp[(n * G.C + c) * G.D + d] = -(wp ? wp[c] : (T)1) * gv * scale;
            }
    )
    if (err) { lm_release(dx); dx = NULL; }
done:
    lm_release(g); lm_release(t); lm_release(w);
    return dx;
}
