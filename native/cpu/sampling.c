/* Sampling kernels: multinomial, randperm, in-place fills from a distribution (uniform_, normal_,
 * exponential_, bernoulli_, ...) and per-element draws (bernoulli(p), poisson(rate)).
 *
 * Each call runs its own xoshiro256** stream seeded from `seed`, which Python draws from a
 * loom.Generator or from the global stream (seed None: drawn here from loom.manual_seed's
 * stream), so a Generator reproduces its draws without touching the global state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"

uint64_t lm_random_u64(void);   /* random.c: the next draw of loom.manual_seed's stream */

typedef struct { uint64_t s[4]; } rng;

static void rng_seed(rng *g, int64_t seed) {
    uint64_t x = seed == INT64_MIN ? lm_random_u64() : (uint64_t)seed;
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        g->s[i] = z ^ (z >> 31);
    }
}

static uint64_t rng_next(rng *g) {
    uint64_t *s = g->s, r = s[1] * 5, t = s[1] << 17;
    r = ((r << 7) | (r >> 57)) * 9;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return r;
}

static double unif(rng *g) { return (double)(rng_next(g) >> 11) * 0x1.0p-53; }         /* [0, 1) */
static double unif_open(rng *g) { return ((double)(rng_next(g) >> 11) + 0.5) * 0x1.0p-53; }  /* (0, 1) */

static double gauss(rng *g) {
    double u1 = unif_open(g), u2 = unif(g);
    return sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2);
}

/* Poisson: Knuth's product of uniforms for small rates, Hormann's PTRS (as NumPy) for large. */
static double poisson(rng *g, double lam) {
    if (lam <= 0) return 0;
    if (lam < 10) {
        double L = exp(-lam), p = 1.0;
        int64_t k = 0;
        do { k++; p *= unif(g); } while (p > L);
        return (double)(k - 1);
    }
    double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        double U = unif(g) - 0.5, V = unif_open(g), us = 0.5 - fabs(U);
        double k = floor((2 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr) return k;
        if (k < 0 || (us < 0.013 && V > us)) continue;
        if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1)) return k;
    }
}

/* Gamma(alpha, 1): Marsaglia and Tsang's squeeze for alpha >= 1; boosted by U^(1/alpha) below 1. */
static double gamma_draw(rng *g, double alpha) {
    if (alpha <= 0) return 0;
    if (alpha < 1) return gamma_draw(g, alpha + 1) * pow(unif_open(g), 1.0 / alpha);
    double d = alpha - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double x, v;
        do { x = gauss(g); v = 1 + c * x; } while (v <= 0);
        v = v * v * v;
        double u = unif_open(g);
        if (u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v))) return d * v;
    }
}

static double draw(rng *g, int64_t kind, double a, double b) {
    switch (kind) {
    case 0: return a + (b - a) * unif(g);                       /* uniform_(from, to) */
    case 1: return a + b * gauss(g);                            /* normal_(mean, std) */
    case 2: return -log(unif_open(g)) / a;                      /* exponential_(lambd) */
    case 3: return unif(g) < a ? 1.0 : 0.0;                     /* bernoulli_(p) */
    case 4: return a + b * tan(M_PI * (unif_open(g) - 0.5));    /* cauchy_(median, sigma) */
    case 5: return exp(a + b * gauss(g));                       /* log_normal_(mean, std) */
    default: return ceil(log(unif_open(g)) / log1p(-a));        /* geometric_(p) */
    }
}

static void store(char *p, int dtype, int64_t i, double v) {
    LM_DISPATCH(dtype, T, , ((T *)p)[i] = (T)v;)
}

static double load(const char *p, int dtype, int64_t i) {
    double v = 0;
    LM_DISPATCH(dtype, T, , v = (double)((const T *)p)[i];)
    return v;
}

static int check_fill(int64_t kind, double a, double b, int dtype) {
    static const char *names[] = {"uniform_", "normal_", "exponential_", "bernoulli_", "cauchy_", "log_normal_",
                                  "geometric_"};
    if (kind < 0 || kind > 6) return lm_set_error(LM_ERR_VALUE, "unknown distribution kind %lld", (long long)kind);
    if (kind != 3 && kind != 6 && !lm_is_floating(dtype))
        return lm_set_error(LM_ERR_TYPE, "%s expects a floating point tensor, got %s", names[kind], lm_dtype_name(dtype));
    if (kind == 0 && !(a <= b))
        return lm_set_error(LM_ERR_RUNTIME, "uniform_ expects to return a [from, to) range, but found from=%g > to=%g", a, b);
    if ((kind == 1 || kind == 5) && !(b >= 0))
        return lm_set_error(LM_ERR_RUNTIME, "%s expects std >= 0.0, but found std %g", names[kind], b);
    if (kind == 2 && !(a > 0))
        return lm_set_error(LM_ERR_RUNTIME, "exponential_ expects lambda > 0.0, but found lambda=%g", a);
    if (kind == 3 && !(a >= 0 && a <= 1))
        return lm_set_error(LM_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%g", a);
    if (kind == 4 && !(b > 0))
        return lm_set_error(LM_ERR_RUNTIME, "cauchy_ expects sigma > 0.0, but found sigma=%g", b);
    if (kind == 6 && !(a > 0 && a < 1))
        return lm_set_error(LM_ERR_RUNTIME, "geometric_ expects p to be in (0, 1), but got p=%g", a);
    return 0;
}

int lm_cpu_random_fill_(lm_tensor *self, int64_t kind, double a, double b, int64_t seed) {
    if (lm_check_writable(self) || check_fill(kind, a, b, self->dtype)) return -1;
    lm_tensor *tmp = lm_empty(self->ndim, self->shape, self->dtype, self->device);
    if (!tmp) return -1;
    rng g;
    rng_seed(&g, seed);
    int64_t n = lm_numel(tmp);
    char *p = lm_bytes(tmp);
    for (int64_t i = 0; i < n; i++) store(p, tmp->dtype, i, draw(&g, kind, a, b));
    int err = lm_copy_into(self, tmp);
    lm_release(tmp);
    return err;
}

/* kind 0: bernoulli with probabilities self; 1: poisson with rates self; 2: gamma with concentration self. */
lm_tensor *lm_cpu_random_draw(lm_tensor *self, int64_t kind, int64_t seed) {
    if (kind < 0 || kind > 2) {
        lm_set_error(LM_ERR_VALUE, "unknown draw kind %lld", (long long)kind);
        return NULL;
    }
    lm_tensor *src = lm_contiguous(self);
    if (!src) return NULL;
    lm_tensor *out = lm_empty(self->ndim, self->shape, self->dtype, self->device);
    if (!out) { lm_release(src); return NULL; }
    rng g;
    rng_seed(&g, seed);
    int64_t n = lm_numel(out);
    const char *ps = lm_bytes(src);
    char *po = lm_bytes(out);
    for (int64_t i = 0; i < n; i++) {
        double v = load(ps, src->dtype, i);
        if (kind == 0 && !(v >= 0 && v <= 1)) {
            lm_set_error(LM_ERR_RUNTIME, "bernoulli expects all probabilities in [0, 1], but got %g", v);
            goto fail;
        }
        if (kind == 1 && !(v >= 0)) {
            lm_set_error(LM_ERR_RUNTIME, "invalid Poisson rate, expected rate to be non-negative");
            goto fail;
        }
        if (kind == 2 && !(v > 0)) {
            lm_set_error(LM_ERR_RUNTIME, "gamma expects a positive concentration, but got %g", v);
            goto fail;
        }
        store(po, out->dtype, i, kind == 0 ? (unif(&g) < v ? 1.0 : 0.0) : kind == 1 ? poisson(&g, v) : gamma_draw(&g, v));
    }
    lm_release(src);
    return out;
fail:
    lm_release(src);
    lm_release(out);
    return NULL;
}

lm_tensor *lm_cpu_randperm(int64_t n, int64_t seed, int dtype, int device) {
    if (n < 0) {
        lm_set_error(LM_ERR_RUNTIME, "Trying to create tensor with negative dimension %lld: [%lld]", (long long)n,
                     (long long)n);
        return NULL;
    }
    int dt = dtype < 0 ? LM_INT64 : dtype;
    /* the largest n whose 0..n-1 the dtype holds exactly: the integers' range (dtypes.yaml), floats' mantissa */
    double top = dt == LM_BOOL ? 2 : lm_is_integral(dt, false) ? lm_dtype_int_hi[dt]
               : dt == LM_FLOAT32 ? 16777217.0 : 9e18;
    if ((double)n > top) {
        lm_set_error(LM_ERR_RUNTIME, "n must be at most %.0f for dtype %s, but got %lld", top, lm_dtype_name(dt), (long long)n);
        return NULL;
    }
    lm_tensor *out = lm_empty(1, &n, dt, device < 0 ? LM_CPU : device);
    if (!out) return NULL;
    int64_t *perm = lm_alloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!perm) { lm_release(out); lm_set_error(LM_ERR_MEMORY, "out of memory"); return NULL; }
    rng g;
    rng_seed(&g, seed);
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {   /* Fisher-Yates */
        int64_t j = (int64_t)(rng_next(&g) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j]; perm[j] = t;
    }
    char *p = lm_bytes(out);
    for (int64_t i = 0; i < n; i++) store(p, dt, i, (double)perm[i]);
    lm_free(perm, sizeof(int64_t) * (size_t)(n ? n : 1));
    return out;
}

typedef struct { double key; int64_t idx; } keyed;

static int by_key_desc(const void *x, const void *y) {
    double a = ((const keyed *)x)->key, b = ((const keyed *)y)->key;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* One row: with replacement, binary search of a uniform in the cumulative sums; without, the
 * largest keys p / E (E exponential), which orders categories as successive draws would. */
static int sample_row(rng *g, const double *p, double *cdf, keyed *keys, int64_t n, int64_t k, bool repl,
                      int64_t *out) {
    double total = 0;
    for (int64_t j = 0; j < n; j++) {
        if (!(p[j] >= 0) || isinf(p[j]))
            return lm_set_error(LM_ERR_RUNTIME, "probability tensor contains either `inf`, `nan` or element < 0");
        total += p[j];
        cdf[j] = total;
    }
    if (!(total > 0)) return lm_set_error(LM_ERR_RUNTIME, "invalid multinomial distribution (sum of probabilities <= 0)");
    if (repl) {
        for (int64_t s = 0; s < k; s++) {
            double u = unif(g) * total;
            int64_t lo = 0, hi = n - 1;
            while (lo < hi) {
                int64_t mid = (lo + hi) / 2;
                if (cdf[mid] > u) hi = mid; else lo = mid + 1;
            }
            while (lo > 0 && p[lo] == 0) lo--;   /* never land on a zero-probability category */
            out[s] = lo;
        }
        return 0;
    }
    if (k == 1) {   /* the common generate() case: one pass, no sort */
        double best = -1;
        int64_t arg = 0;
        for (int64_t j = 0; j < n; j++) {
            double key = p[j] / -log(unif_open(g));
            if (key > best) { best = key; arg = j; }
        }
        out[0] = arg;
        return 0;
    }
    for (int64_t j = 0; j < n; j++) { keys[j].key = p[j] / -log(unif_open(g)); keys[j].idx = j; }
    qsort(keys, (size_t)n, sizeof(keyed), by_key_desc);
    for (int64_t s = 0; s < k; s++) out[s] = keys[s].idx;
    return 0;
}

lm_tensor *lm_cpu_multinomial(lm_tensor *self, int64_t num_samples, bool replacement, int64_t seed) {
    if (self->ndim != 1 && self->ndim != 2) {
        lm_set_error(LM_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
        return NULL;
    }
    int64_t n = self->shape[self->ndim - 1], rows = self->ndim == 2 ? self->shape[0] : 1;
    if (num_samples <= 0) { lm_set_error(LM_ERR_RUNTIME, "cannot sample n_sample <= 0 samples"); return NULL; }
    if (!replacement && num_samples > n) {
        lm_set_error(LM_ERR_RUNTIME, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
        return NULL;
    }
    if (n > (1 << 24)) { lm_set_error(LM_ERR_RUNTIME, "number of categories cannot exceed 2^24"); return NULL; }
    if (n == 0) { lm_set_error(LM_ERR_RUNTIME, "invalid multinomial distribution (sum of probabilities <= 0)"); return NULL; }
    int64_t shape[2] = {rows, num_samples};
    lm_tensor *out = self->ndim == 2 ? lm_empty(2, shape, LM_INT64, self->device)
                                     : lm_empty(1, &num_samples, LM_INT64, self->device);
    lm_tensor *src = out ? lm_cast(self, LM_FLOAT64) : NULL;
    lm_tensor *c = src ? lm_contiguous(src) : NULL;
    size_t bytes = (size_t)n * (sizeof(double) + sizeof(keyed));
    char *work = c ? lm_alloc(bytes) : NULL;
    int err = work ? 0 : -1;
    if (c && !work) lm_set_error(LM_ERR_MEMORY, "out of memory");
    if (!err) {
        rng g;
        rng_seed(&g, seed);
        const double *p = (const double *)lm_bytes(c);
        int64_t *o = (int64_t *)lm_bytes(out);
        for (int64_t r = 0; r < rows && !err; r++)
            err = sample_row(&g, p + r * n, (double *)work, (keyed *)(work + (size_t)n * sizeof(double)), n,
                             num_samples, replacement, o + r * num_samples);
    }
    if (work) lm_free(work, bytes);
    if (c) lm_release(c);
    if (src) lm_release(src);
    if (err && out) { lm_release(out); out = NULL; }
    return out;
}
