/* 2-D pooling over (N, C, H, W) or (C, H, W): max (with the argmax per window,
 * flat h * W + w as PyTorch), average, adaptive average, and their backward
 * scatters. Planes are independent, so the loops split over planes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "iter.h"
#include "parallel.h"
#include "int_pair.h"
#include "alloc.h"
#include "cuda_host.h"

typedef struct { int64_t planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw; int ndim; } pgeom;

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
    int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    /* floor division (PyTorch's div_rtn): a kernel longer than the input gives no window, not one */
    int64_t o = (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;
    if (ceil_mode && (o - 1) * s >= in + p) o--;   /* the last window must start inside the input or left padding */
    return o;
}

static int planes_of(const lm_tensor *t, pgeom *G) {
    if (t->ndim != 3 && t->ndim != 4)
        return lm_set_error(LM_ERR_VALUE, "expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got %dD", t->ndim);
    G->ndim = t->ndim;
    G->planes = t->ndim == 4 ? t->shape[0] * t->shape[1] : t->shape[0];
    G->H = t->shape[t->ndim - 2];
    G->W = t->shape[t->ndim - 1];
    if (G->H == 0 || G->W == 0) return lm_set_error(LM_ERR_VALUE, "expected non-empty spatial dims, got %lld x %lld",
                                                    (long long)G->H, (long long)G->W);
    return 0;
}

static int window_geom(const lm_tensor *t, pgeom *G, const int64_t *ks, int64_t ks_len, const int64_t *st,
                       int64_t st_len, const int64_t *pd, int64_t pd_len, const int64_t *dl, int64_t dl_len,
                       bool ceil_mode) {
    int64_t k[2], s[2], p[2], d[2] = {1, 1};
    if (planes_of(t, G) || lm_int_pair("kernel_size", ks, ks_len, NULL, k, 1) ||
        lm_int_pair("stride", st, st_len, k, s, 1) || lm_int_pair("padding", pd, pd_len, NULL, p, 0) || (dl && lm_int_pair("dilation", dl, dl_len, NULL, d, 1)))
        return -1;
    if (p[0] * 2 > k[0] || p[1] * 2 > k[1])
        return lm_set_error(LM_ERR_VALUE, "pad should be at most half of effective kernel size, but got pad=(%lld, %lld) "
                            "and kernel_size=(%lld, %lld)", (long long)p[0], (long long)p[1], (long long)k[0], (long long)k[1]);
    G->kh = k[0]; G->kw = k[1]; G->sh = s[0]; G->sw = s[1]; G->ph = p[0]; G->pw = p[1]; G->dh = d[0]; G->dw = d[1];
    G->OH = out_size(G->H, k[0], s[0], p[0], d[0], ceil_mode);
    G->OW = out_size(G->W, k[1], s[1], p[1], d[1], ceil_mode);
    if (G->OH < 1 || G->OW < 1)
        return lm_set_error(LM_ERR_VALUE, "Given input size: (%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lld). "
                            "Output size is too small", (long long)t->shape[t->ndim - 3], (long long)G->H, (long long)G->W,
                            (long long)t->shape[t->ndim - 3], (long long)G->OH, (long long)G->OW);
    return 0;
}

/* the window taps k in [lo, hi) whose position start + k * step lies in [0, n) */
static inline void window(int64_t start, int64_t taps, int64_t step, int64_t n, int64_t *lo, int64_t *hi) {
    int64_t l = start < 0 ? (-start + step - 1) / step : 0;
    int64_t h = n - start <= 0 ? 0 : (n - start + step - 1) / step;
    *lo = l;
    *hi = h < taps ? h : taps;
}

static lm_cuda_pool_geom cuda_geom(const pgeom *G) {
    lm_cuda_pool_geom c = {G->planes, G->H, G->W, G->OH, G->OW, G->kh, G->kw, G->sh, G->sw, G->ph, G->pw, G->dh, G->dw};
    return c;
}

static lm_tensor *pooled(const lm_tensor *t, const pgeom *G, int dtype) {
    int64_t shape[4];
    memcpy(shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    shape[t->ndim - 2] = G->OH;
    shape[t->ndim - 1] = G->OW;
    return lm_empty(t->ndim, shape, dtype, t->device);
}

int lm_cpu_max_pool2d_with_indices(lm_tensor *self, const int64_t *kernel_size, int64_t kernel_size_len,
                                   const int64_t *stride, int64_t stride_len, const int64_t *padding,
                                   int64_t padding_len, const int64_t *dilation, int64_t dilation_len, bool ceil_mode,
                                   lm_tensor **out) {
    pgeom G;
    if (window_geom(self, &G, kernel_size, kernel_size_len, stride, stride_len, padding, padding_len, dilation,
                    dilation_len, ceil_mode))
        return -1;
    lm_tensor *x = lm_contiguous(self), *vals = pooled(self, &G, self->dtype), *idx = pooled(self, &G, LM_INT64);
    if (!x || !vals || !idx) { lm_release(x); lm_release(vals); lm_release(idx); return -1; }
    if (self->device == LM_CUDA) {
        lm_cuda_pool_geom cg = cuda_geom(&G);
        int err = lm_cuda_max_pool_run(self->dtype, &cg, lm_bytes(x), lm_bytes(vals), (int64_t *)lm_bytes(idx));
        lm_release(x);
        if (err) { lm_release(vals); lm_release(idx); return -1; }
        out[0] = vals;
        out[1] = idx;
        return 0;
    }
    const pgeom g = G;
    bool par = lm_should_parallelize(g.planes * g.OH * g.OW * g.kh * g.kw);
    /* each output row's and column's in-bounds taps, computed once (divisions are slow) */
    int64_t *taps = malloc(sizeof(int64_t) * 2 * (size_t)(g.OH + g.OW));
    if (!taps) { lm_release(x); lm_release(vals); lm_release(idx); return lm_set_error(LM_ERR_MEMORY, "out of memory"); }
    void *gil = par ? lm_gil_release() : NULL;   /* after the one early return */
    for (int64_t oh = 0; oh < g.OH; oh++) window(oh * g.sh - g.ph, g.kh, g.dh, g.H, &taps[2 * oh], &taps[2 * oh + 1]);
    int64_t *wt = taps + 2 * g.OH;
    for (int64_t ow = 0; ow < g.OW; ow++) window(ow * g.sw - g.pw, g.kw, g.dw, g.W, &wt[2 * ow], &wt[2 * ow + 1]);
    LM_DISPATCH(self->dtype, T, ,
        const T *xp = (const T *)lm_bytes(x);
        T *vp = (T *)lm_bytes(vals);
        int64_t *ip = (int64_t *)lm_bytes(idx);
        const int64_t H = g.H, W = g.W, OH = g.OH, OW = g.OW, sh = g.sh, sw = g.sw, ph = g.ph, pw = g.pw;
        const int64_t dh = g.dh, dw = g.dw;
        LM_PARALLEL_SLICES(g.planes, par,   /* timed for the busy-machine backoff (parallel.h) */
        for (int64_t pl = lo; pl < hi; pl++) {
            const T *plane = xp + pl * H * W;
            T *vo = vp + pl * OH * OW;
            int64_t *io = ip + pl * OH * OW;
            if (g.kh == 2 && g.kw == 2 && ph == 0 && pw == 0 && dh == 1 && dw == 1 &&
                (OH - 1) * sh + 1 < H && (OW - 1) * sw + 1 < W) {
                /* the common 2x2 window, always inside the input: four loads per output */
                for (int64_t oh = 0; oh < OH; oh++)
                    for (int64_t ow = 0; ow < OW; ow++) {
                        const int64_t p0 = oh * sh * W + ow * sw;
                        const int64_t pos[4] = {p0, p0 + 1, p0 + W, p0 + W + 1};
                        T m = plane[p0];
                        int64_t b = p0;
                        bool nan = m != m;
                        for (int k = 1; k < 4; k++) {   /* selects the compiler keeps branch-free */
                            const T v = plane[pos[k]];
                            nan |= v != v;
                            b = v > m ? pos[k] : b;
                            m = v > m ? v : m;
                        }
                        if (nan)   /* rare: the last NaN wins, as in PyTorch */
                            for (int k = 0; k < 4; k++)
                                if (plane[pos[k]] != plane[pos[k]]) { m = plane[pos[k]]; b = pos[k]; }
                        vo[oh * OW + ow] = m;
                        io[oh * OW + ow] = b;
                    }
                continue;
            }
            /* tap by tap over a whole output row: the row's windows are independent
             * chains the core overlaps, where one window's taps form a serial chain */
            for (int64_t oh = 0; oh < OH; oh++) {
                const int64_t hs = oh * sh - ph, ilo = taps[2 * oh], ihi = taps[2 * oh + 1];
                T *m = vo + oh * OW;
                int64_t *best = io + oh * OW;
                for (int64_t ow = 0; ow < OW; ow++) {
                    best[ow] = (hs + ilo * dh) * W + ow * sw - pw + wt[2 * ow] * dw;
                    m[ow] = plane[best[ow]];
                }
                for (int64_t i = ilo; i < ihi; i++) {
                    const int64_t rowpos = (hs + i * dh) * W - pw;
                    for (int64_t j = 0; j < g.kw; j++)
                        for (int64_t ow = 0; ow < OW; ow++) {
                            if (j < wt[2 * ow] || j >= wt[2 * ow + 1]) continue;   /* off the edge */
                            const int64_t pos = rowpos + ow * sw + j * dw;
                            const T v = plane[pos];
                            /* a NaN wins the window (the last one, as in PyTorch); testing
                             * only v for NaN keeps the loop branch-free and ~6x faster */
                            const bool take = (v > m[ow]) | (v != v);
                            m[ow] = take ? v : m[ow];
                            best[ow] = take ? pos : best[ow];
                        }
                }
            }
        });)
    free(taps);
    lm_gil_reacquire(gil);
    lm_release(x);
    out[0] = vals;
    out[1] = idx;
    return 0;
}

/* grad (shape of the pooled output) added into zeros shaped like self at indices */
lm_tensor *lm_cpu_max_pool2d_backward(lm_tensor *grad_output, lm_tensor *self, lm_tensor *indices) {
    pgeom G;
    if (planes_of(self, &G)) return NULL;
    if (indices->dtype != LM_INT64 || !lm_same_shape(grad_output, indices) || grad_output->ndim != self->ndim) {
        lm_set_error(LM_ERR_VALUE, "grad_output and indices must have the pooled shape, and indices dtype int64");
        return NULL;
    }
    int64_t OL = grad_output->shape[self->ndim - 2] * grad_output->shape[self->ndim - 1], HW = G.H * G.W;
    if (lm_numel(grad_output) != G.planes * OL) {
        lm_set_error(LM_ERR_VALUE, "grad_output has %lld planes, expected %lld", (long long)(OL ? lm_numel(grad_output) / OL : 0),
                     (long long)G.planes);
        return NULL;
    }
    lm_tensor *g = lm_contiguous(grad_output), *ix = lm_contiguous(indices), *dx = lm_empty_like(self, grad_output->dtype);
    if (!g || !ix || !dx) { lm_release(g); lm_release(ix); lm_release(dx); return NULL; }
    int64_t item = (int64_t)lm_itemsize(dx->dtype);
    lm_allocator_for(dx->device)->zero(lm_bytes(dx), (size_t)(lm_numel(dx) * item));
    const int64_t *ip = (const int64_t *)lm_bytes(ix);
    int bad = 0;
    if (dx->device == LM_CUDA) {
        bool off = false;
        int err = !lm_is_floating(dx->dtype)
                      ? lm_set_error(LM_ERR_NOTIMPL, "max_pool2d_backward on cuda: floating dtypes only, got %s",
                                     lm_dtype_name(dx->dtype))
                      : lm_cuda_max_pool_backward_run(dx->dtype, G.planes, OL, HW, lm_bytes(g), ip, lm_bytes(dx), &off);
        lm_release(g);
        lm_release(ix);
        if (err || off) {
            lm_release(dx);
            if (off) lm_set_error(LM_ERR_INDEX, "indices out of range for a %lld x %lld plane", (long long)G.H, (long long)G.W);
            return NULL;
        }
        return dx;
    }
    LM_DISPATCH(dx->dtype, T, ,
        const T *gp = (const T *)lm_bytes(g);
        T *dp = (T *)lm_bytes(dx);
        for (int64_t pl = 0; pl < G.planes; pl++)
            for (int64_t k = 0; k < OL; k++) {
                int64_t at = ip[pl * OL + k];
                if (at < 0 || at >= HW) { bad = 1; continue; }
                dp[pl * HW + at] += gp[pl * OL + k];
            })
    lm_release(g);
    lm_release(ix);
    if (bad) {
        lm_release(dx);
        lm_set_error(LM_ERR_INDEX, "indices out of range for a %lld x %lld plane", (long long)G.H, (long long)G.W);
        return NULL;
    }
    return dx;
}

/* avg_pool2d forward (backward = false) or backward (grad into dx). */
static int avg_pool(const pgeom *G, int dtype, const char *src, char *dst, bool backward, bool count_include_pad,
                    int64_t divisor_override) {
    bool par = lm_should_parallelize(G->planes * G->OH * G->OW * G->kh * G->kw);
    void *gil = par ? lm_gil_release() : NULL;
    const pgeom g = *G;
    LM_DISPATCH_FLOAT(dtype, T, ,
        const T *s = (const T *)src;
        T *d = (T *)dst;
        LM_PARALLEL_SLICES(g.planes, par,   /* timed for the busy-machine backoff (parallel.h) */
        for (int64_t pl = lo; pl < hi; pl++) {
            const T *xin = s + pl * (backward ? g.OH * g.OW : g.H * g.W);
            T *o = d + pl * (backward ? g.H * g.W : g.OH * g.OW);
            for (int64_t oh = 0; oh < g.OH; oh++)
                for (int64_t ow = 0; ow < g.OW; ow++) {
                    int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
                    int64_t h1 = h0 + g.kh < g.H + g.ph ? h0 + g.kh : g.H + g.ph;
                    int64_t w1 = w0 + g.kw < g.W + g.pw ? w0 + g.kw : g.W + g.pw;
                    int64_t padded = (h1 - h0) * (w1 - w0);
                    if (h0 < 0) h0 = 0;
                    if (w0 < 0) w0 = 0;
                    if (h1 > g.H) h1 = g.H;
                    if (w1 > g.W) w1 = g.W;
                    int64_t div = divisor_override != INT64_MIN ? divisor_override
                                  : count_include_pad ? padded : (h1 - h0) * (w1 - w0);
                    if (!backward) {
                        T acc = 0;
                        for (int64_t h = h0; h < h1; h++)
                            for (int64_t w = w0; w < w1; w++) acc += xin[h * g.W + w];
                        o[oh * g.OW + ow] = div ? acc / (T)div : (T)NAN;
                    } else {
                        T v = div ? xin[oh * g.OW + ow] / (T)div : (T)NAN;
                        for (int64_t h = h0; h < h1; h++)
                            for (int64_t w = w0; w < w1; w++) o[h * g.W + w] += v;
                    }
                }
        });)
    lm_gil_reacquire(gil);
    return 0;
}

/* serves: floating */
lm_tensor *lm_cpu_avg_pool2d(lm_tensor *self, const int64_t *kernel_size, int64_t kernel_size_len,
                             const int64_t *stride, int64_t stride_len, const int64_t *padding, int64_t padding_len,
                             bool ceil_mode, bool count_include_pad, int64_t divisor_override) {
    pgeom G;
    if (window_geom(self, &G, kernel_size, kernel_size_len, stride, stride_len, padding, padding_len, NULL, 0,
                    ceil_mode))
        return NULL;
    if (divisor_override == 0) { lm_set_error(LM_ERR_VALUE, "divisor must be not zero"); return NULL; }
    lm_tensor *x = lm_contiguous(self), *out = pooled(self, &G, self->dtype);
    if (!x || !out) { lm_release(x); lm_release(out); return NULL; }
    if (self->device == LM_CUDA) {
        lm_cuda_pool_geom cg = cuda_geom(&G);
        if (lm_cuda_avg_pool_run(self->dtype, &cg, false, false, count_include_pad, divisor_override, lm_bytes(x),
                                 lm_bytes(out))) { lm_release(x); lm_release(out); return NULL; }
    } else {
        avg_pool(&G, self->dtype, lm_bytes(x), lm_bytes(out), false, count_include_pad, divisor_override);
    }
    lm_release(x);
    return out;
}

/* serves: floating */
lm_tensor *lm_cpu_avg_pool2d_backward(lm_tensor *grad_output, lm_tensor *self, const int64_t *kernel_size,
                                      int64_t kernel_size_len, const int64_t *stride, int64_t stride_len,
                                      const int64_t *padding, int64_t padding_len, bool ceil_mode,
                                      bool count_include_pad, int64_t divisor_override) {
    pgeom G;
    if (window_geom(self, &G, kernel_size, kernel_size_len, stride, stride_len, padding, padding_len, NULL, 0,
                    ceil_mode))
        return NULL;
    int n = self->ndim;
    if (grad_output->ndim != n || grad_output->shape[n - 2] != G.OH || grad_output->shape[n - 1] != G.OW ||
        lm_numel(grad_output) != G.planes * G.OH * G.OW) {
        lm_set_error(LM_ERR_VALUE, "grad_output must have the pooled shape (..., %lld, %lld)", (long long)G.OH, (long long)G.OW);
        return NULL;
    }
    if (divisor_override == 0) { lm_set_error(LM_ERR_VALUE, "divisor must be not zero"); return NULL; }
    lm_tensor *g = lm_contiguous(grad_output), *dx = lm_empty_like(self, grad_output->dtype);
    if (!g || !dx) { lm_release(g); lm_release(dx); return NULL; }
    if (dx->device == LM_CUDA) {   /* the device kernel writes every element of dx */
        lm_cuda_pool_geom cg = cuda_geom(&G);
        if (lm_cuda_avg_pool_run(dx->dtype, &cg, false, true, count_include_pad, divisor_override, lm_bytes(g),
                                 lm_bytes(dx))) { lm_release(g); lm_release(dx); return NULL; }
    } else {
        memset(lm_bytes(dx), 0, (size_t)lm_numel(dx) * lm_itemsize(dx->dtype));
        avg_pool(&G, dx->dtype, lm_bytes(g), lm_bytes(dx), true, count_include_pad, divisor_override);
    }
    lm_release(g);
    return dx;
}

/* adaptive average: window [floor(o*H/OH), ceil((o+1)*H/OH)) per output position */
static int adaptive(const pgeom *G, int dtype, const char *src, char *dst, bool backward) {
    const pgeom g = *G;
    LM_DISPATCH_FLOAT(dtype, T, ,
        const T *s = (const T *)src;
        T *d = (T *)dst;
        for (int64_t pl = 0; pl < g.planes; pl++) {
            const T *xin = s + pl * (backward ? g.OH * g.OW : g.H * g.W);
            T *o = d + pl * (backward ? g.H * g.W : g.OH * g.OW);
            for (int64_t oh = 0; oh < g.OH; oh++) {
                int64_t h0 = oh * g.H / g.OH, h1 = ((oh + 1) * g.H + g.OH - 1) / g.OH;
                for (int64_t ow = 0; ow < g.OW; ow++) {
                    int64_t w0 = ow * g.W / g.OW, w1 = ((ow + 1) * g.W + g.OW - 1) / g.OW;
                    T div = (T)((h1 - h0) * (w1 - w0));
                    if (!backward) {
                        T acc = 0;
                        for (int64_t h = h0; h < h1; h++)
                            for (int64_t w = w0; w < w1; w++) acc += xin[h * g.W + w];
                        o[oh * g.OW + ow] = acc / div;
                    } else {
                        T v = xin[oh * g.OW + ow] / div;
                        for (int64_t h = h0; h < h1; h++)
                            for (int64_t w = w0; w < w1; w++) o[h * g.W + w] += v;
                    }
                }
            }
        })
    return 0;
}

/* serves: floating */
lm_tensor *lm_cpu_adaptive_avg_pool2d(lm_tensor *self, const int64_t *output_size, int64_t output_size_len) {
    pgeom G;
    int64_t os[2];
    if (planes_of(self, &G) || lm_int_pair("output_size", output_size, output_size_len, NULL, os, 1)) return NULL;
    G.OH = os[0];
    G.OW = os[1];
    lm_tensor *x = lm_contiguous(self), *out = pooled(self, &G, self->dtype);
    if (!x || !out) { lm_release(x); lm_release(out); return NULL; }
    if (self->device == LM_CUDA) {
        lm_cuda_pool_geom cg = cuda_geom(&G);
        if (lm_cuda_avg_pool_run(self->dtype, &cg, true, false, false, INT64_MIN, lm_bytes(x), lm_bytes(out))) {
            lm_release(x);
            lm_release(out);
            return NULL;
        }
    } else {
        adaptive(&G, self->dtype, lm_bytes(x), lm_bytes(out), false);
    }
    lm_release(x);
    return out;
}

/* serves: floating */
lm_tensor *lm_cpu_adaptive_avg_pool2d_backward(lm_tensor *grad_output, lm_tensor *self) {
    pgeom G;
    if (planes_of(self, &G)) return NULL;
    int n = self->ndim;
    if (grad_output->ndim != n) { lm_set_error(LM_ERR_VALUE, "grad_output must have %d dims", n); return NULL; }
    G.OH = grad_output->shape[n - 2];
    G.OW = grad_output->shape[n - 1];
    if (G.OH < 1 || G.OW < 1 || lm_numel(grad_output) != G.planes * G.OH * G.OW) {
        lm_set_error(LM_ERR_VALUE, "grad_output does not match the input's planes");
        return NULL;
    }
    lm_tensor *g = lm_contiguous(grad_output), *dx = lm_empty_like(self, grad_output->dtype);
    if (!g || !dx) { lm_release(g); lm_release(dx); return NULL; }
    if (dx->device == LM_CUDA) {   /* the device kernel writes every element of dx */
        lm_cuda_pool_geom cg = cuda_geom(&G);
        if (lm_cuda_avg_pool_run(dx->dtype, &cg, true, true, false, INT64_MIN, lm_bytes(g), lm_bytes(dx))) {
            lm_release(g);
            lm_release(dx);
            return NULL;
        }
    } else {
        memset(lm_bytes(dx), 0, (size_t)lm_numel(dx) * lm_itemsize(dx->dtype));
        adaptive(&G, dx->dtype, lm_bytes(g), lm_bytes(dx), true);
    }
    lm_release(g);
    return dx;
}

/* adaptive max: the maximum (the last NaN if any, the first of ties, as PyTorch) over the window
 * [floor(o*H/OH), ceil((o+1)*H/OH)) x [floor(o*W/OW), ceil((o+1)*W/OW)) and its flat position h * W + w;
 * the backward is max_pool2d_backward, which scatters through these indices */
int lm_cpu_adaptive_max_pool2d(lm_tensor *self, const int64_t *output_size, int64_t output_size_len, lm_tensor **out) {
    pgeom G;
    int64_t os[2];
    if (self->ndim != 3 && self->ndim != 4)
        return lm_set_error(LM_ERR_VALUE, "expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got %d-D", self->ndim);
    if (lm_int_pair("output_size", output_size, output_size_len, NULL, os, 0)) return -1;
    int64_t H = self->shape[self->ndim - 2], W = self->shape[self->ndim - 1];
    if (os[0] < 1 || os[1] < 1 || H < 1 || W < 1) {
        char shp[128] = "[";
        for (int i = 0; i < self->ndim; i++)
            snprintf(shp + strlen(shp), sizeof shp - strlen(shp), "%s%lld", i ? ", " : "", (long long)self->shape[i]);
        return lm_set_error(LM_ERR_VALUE, "expected non-empty input planes and a positive output_size, got input %s] "
                            "and output_size [%lld, %lld]", shp, (long long)os[0], (long long)os[1]);
    }
    if (planes_of(self, &G)) return -1;
    G.OH = os[0];
    G.OW = os[1];
    lm_tensor *x = lm_contiguous(self), *vals = pooled(self, &G, self->dtype), *idx = pooled(self, &G, LM_INT64);
    if (!x || !vals || !idx) { lm_release(x); lm_release(vals); lm_release(idx); return -1; }
    const pgeom g = G;
    bool par = lm_should_parallelize(g.planes * (g.H * g.W + g.OH * g.OW));
    void *gil = par ? lm_gil_release() : NULL;
    LM_DISPATCH(self->dtype, T, ,
        const T *xp = (const T *)lm_bytes(x);
        T *vp = (T *)lm_bytes(vals);
        int64_t *ip = (int64_t *)lm_bytes(idx);
        LM_PARALLEL_SLICES(g.planes, par,   /* timed for the busy-machine backoff (parallel.h) */
        for (int64_t pl = lo; pl < hi; pl++) {
            const T *plane = xp + pl * g.H * g.W;
            for (int64_t oh = 0; oh < g.OH; oh++) {
                const int64_t h0 = oh * g.H / g.OH, h1 = ((oh + 1) * g.H + g.OH - 1) / g.OH;
                for (int64_t ow = 0; ow < g.OW; ow++) {
                    const int64_t w0 = ow * g.W / g.OW, w1 = ((ow + 1) * g.W + g.OW - 1) / g.OW;
                    int64_t b = h0 * g.W + w0;
                    T m = plane[b];
                    for (int64_t h = h0; h < h1; h++)
                        for (int64_t w = w0; w < w1; w++) {
                            const int64_t pos = h * g.W + w;
                            const T v = plane[pos];
                            const bool take = (v > m) | (v != v);
                            m = take ? v : m;
                            b = take ? pos : b;
                        }
                    vp[(pl * g.OH + oh) * g.OW + ow] = m;
                    ip[(pl * g.OH + oh) * g.OW + ow] = b;
                }
            }
        });)
    lm_gil_reacquire(gil);
    lm_release(x);
    out[0] = vals;
    out[1] = idx;
    return 0;
}
