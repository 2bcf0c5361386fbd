/* rand / randn / randint from one global xoshiro256** stream, seeded by
 * loom.manual_seed. Filled serially, so a seed gives the same numbers
 * whatever the thread count. */
#include <math.h>
#include "loom.h"
#include "loom_ops.h"
#include "cuda_host.h"

static uint64_t state[4];
static bool seeded;

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void lm_manual_seed(uint64_t seed) {
    for (int i = 0; i < 4; i++) state[i] = splitmix(&seed);
    seeded = true;
}

/* the stream's state, for loom.get_rng_state/set_rng_state (checkpointing replays dropout with it):
 * four words, and a fifth that is 1 once seeded */
void lm_get_rng_state(uint64_t *out) {
    if (!seeded) lm_manual_seed(0x10035eedULL);
    for (int i = 0; i < 4; i++) out[i] = state[i];
    out[4] = 1;
}

int lm_set_rng_state(const uint64_t *in) {
    if (in[4] != 1 || !(in[0] | in[1] | in[2] | in[3]))   /* xoshiro's state must not be all zero */
        return lm_set_error(LM_ERR_VALUE, "not a loom random generator state");
    for (int i = 0; i < 4; i++) state[i] = in[i];
    seeded = true;
    return 0;
}

static uint64_t next(void) {
    if (!seeded) lm_manual_seed(0x10035eedULL);
    uint64_t *s = state, r = s[1] * 5, t = s[1] << 17;
    r = ((r << 7) | (r >> 57)) * 9;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return r;
}

static double uniform(void) { return (double)(next() >> 11) * 0x1.0p-53; }

/* a tensor on a device: filled there by the device's own generator (CUDA: Philox) */
static lm_tensor *on_device(lm_tensor *t, int kind, double a, double b) {
    if (lm_cuda_random_fill(t, kind, a, b)) { lm_release(t); return NULL; }
    return t;
}

static lm_tensor *make(const int64_t *size, int64_t n, int dtype, int device, bool floating) {
    if (dtype < 0) dtype = floating ? lm_get_default_dtype() : LM_INT64;
    if (floating && !lm_is_floating(dtype)) {
        lm_set_error(LM_ERR_TYPE, "expected a floating point dtype, got %s", lm_dtype_name(dtype));
        return NULL;
    }
    if (lm_check_shape((int)n, size)) return NULL;
    return lm_empty((int)n, size, dtype, device < 0 ? LM_CPU : device);
}

lm_tensor *lm_cpu_rand(const int64_t *size, int64_t size_len, int dtype, int device) {
    int dt = dtype < 0 ? lm_get_default_dtype() : dtype;   /* float16/bfloat16: drawn here, then moved */
    lm_tensor *t = make(size, size_len, dtype, device < 0 || lm_dtype_work[dt] == dt ? device : LM_CPU, true);
    if (!t) return NULL;
    if (t->device != LM_CPU) return on_device(t, 0, 0.0, 1.0);
    int64_t n = lm_numel(t);
    if (lm_dtype_work[t->dtype] != t->dtype) {   /* float16/bfloat16: multiples of 2^-digits (never 1), made here */
        int dg = lm_dtype_digits[t->dtype];
        lm_tensor *w = lm_empty(t->ndim, t->shape, LM_FLOAT32, LM_CPU);
        float *p = w ? (float *)lm_bytes(w) : NULL;
        for (int64_t i = 0; p && i < n; i++) p[i] = ldexpf((float)(next() >> (64 - dg)), -dg);
        int err = !w || lm_copy_into(t, w);
        lm_release(w);
        if (err) { lm_release(t); return NULL; }
        return device > LM_CPU ? lm_move_to(t, device) : t;
    }
    if (t->dtype == LM_FLOAT32) {
        float *p = (float *)lm_bytes(t);
        for (int64_t i = 0; i < n; i++) p[i] = (float)(next() >> 40) * 0x1.0p-24f;
    } else {
        double *p = (double *)lm_bytes(t);
        for (int64_t i = 0; i < n; i++) p[i] = uniform();
    }
    return t;
}

lm_tensor *lm_cpu_randn(const int64_t *size, int64_t size_len, int dtype, int device) {
    lm_tensor *t = make(size, size_len, dtype, device, true);
    if (!t) return NULL;
    if (t->device != LM_CPU) return on_device(t, 1, 0.0, 1.0);
    int64_t n = lm_numel(t);
    char *p = lm_bytes(t);
    for (int64_t i = 0; i < n; i += 2) {   /* Box-Muller: two normals per pair of uniforms */
        double u1 = 1.0 - uniform(), u2 = uniform();
        double r = sqrt(-2.0 * log(u1)), z0 = r * cos(2 * M_PI * u2), z1 = r * sin(2 * M_PI * u2);
        if (t->dtype == LM_FLOAT32) {
            ((float *)p)[i] = (float)z0;
            if (i + 1 < n) ((float *)p)[i + 1] = (float)z1;
        } else {
            ((double *)p)[i] = z0;
            if (i + 1 < n) ((double *)p)[i + 1] = z1;
        }
    }
    return t;
}

lm_tensor *lm_cpu_randint(int64_t low, int64_t high, const int64_t *size, int64_t size_len, int dtype, int device) {
    if (high <= low) {
        lm_set_error(LM_ERR_VALUE, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                     (long long)low, (long long)high);
        return NULL;
    }
    int dt = dtype < 0 ? LM_INT64 : dtype;
    /* [lo, hi) of the dtype (dtypes.yaml); the int64 bounds themselves are not representable as
     * doubles, and every int64 `from` is in range */
    bool wide = lm_itemsize(dt) == 8;
    int64_t lo = dt == LM_BOOL || lm_is_barebones(dt) ? 0 : wide ? INT64_MIN : (int64_t)lm_dtype_int_lo[dt];
    int64_t hi = dt == LM_BOOL ? 2 : wide ? INT64_MAX : (int64_t)lm_dtype_int_hi[dt];
    if (lm_is_integral(dt, true) && (low < lo || high > hi)) {
        lm_set_error(LM_ERR_VALUE, "random_ expects 'from' and 'to' within the range of %s, but got from=%lld to=%lld",
                     lm_dtype_name(dt), (long long)low, (long long)high);
        return NULL;
    }
    uint64_t range = (uint64_t)high - (uint64_t)low;
    /* the device generator takes the range as a double: exact below 2^53; wider ones are drawn here */
    bool here = device < 0 || device == LM_CPU || range > ((uint64_t)1 << 53);
    lm_tensor *t = make(size, size_len, dtype, here ? LM_CPU : device, false);
    if (!t) return NULL;
    if (!here) return on_device(t, 2, (double)low, (double)range);
    int64_t n = lm_numel(t);
    char *p = lm_bytes(t);
    LM_DISPATCH_AND_BAREBONES(t->dtype, T, ,
        for (int64_t i = 0; i < n; i++) ((T *)p)[i] = (T)(low + (int64_t)(next() % range));)
    return lm_move_to(t, device < 0 ? LM_CPU : device);
}

/* The next draw of the global stream, for sampling.c's per-call streams (seed None). */
uint64_t lm_random_u64(void) { return next(); }
