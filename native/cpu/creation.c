/* full / arange / linspace / eye: tensors made from sizes and scalars. */
#include <math.h>
#include <string.h>
#include "loom.h"
#include "loom_ops.h"
#include "ops_support.h"   /* LM_SCALAR_AS */

static int default_dtype(lm_scalar v) {
    return v.kind == 3 ? lm_dtype_to_complex[lm_get_default_dtype()] : v.kind == 2 ? lm_get_default_dtype()
         : v.kind == 0 ? LM_BOOL : LM_INT64;   /* 2^63 and up too, which int64 then refuses, as PyTorch */
}
static int dev(int device) { return device < 0 ? LM_CPU : device; }

/* on the CPU a loop; elsewhere one element is broadcast by the device's copy */
lm_tensor *lm_cpu_full(const int64_t *size, int64_t size_len, lm_scalar fill_value, int dtype, int device) {
    if (lm_check_shape((int)size_len, size)) return NULL;
    if (dtype < 0) dtype = default_dtype(fill_value);
    if (lm_check_scalar_fits(fill_value, dtype)) return NULL;
    lm_tensor *t = lm_empty((int)size_len, size, dtype, dev(device));
    if (!t) return NULL;
    if (t->device != LM_CPU || lm_dtype_work[dtype] != dtype || lm_is_complex(dtype)) {   /* one element broadcast by the copy */
        lm_tensor *v = lm_scalar_tensor(fill_value, dtype, false);
        int err = !v || lm_copy_into(t, v);
        lm_release(v);
        if (err) { lm_release(t); return NULL; }
        return t;
    }
    int64_t n = lm_numel(t);
    char *p = lm_bytes(t);
    LM_DISPATCH_AND_BAREBONES(dtype, T, ,
        T v = LM_SCALAR_AS(T, fill_value);
        for (int64_t i = 0; i < n; i++) ((T *)p)[i] = v;)
    return t;
}

/* made on the CPU (lm_cpu_ below moves it) */
static lm_tensor *host_arange(lm_scalar start, lm_scalar end, lm_scalar step, int dtype) {
    bool all_int = start.kind < 2 && end.kind < 2 && step.kind < 2;
    if (dtype < 0) dtype = all_int ? LM_INT64 : lm_get_default_dtype();
    double s = lm_scalar_f64(start), e = lm_scalar_f64(end), st = lm_scalar_f64(step);
    if (st == 0) { lm_set_error(LM_ERR_VALUE, "step must be nonzero"); return NULL; }
    if (!isfinite(s) || !isfinite(e)) { lm_set_error(LM_ERR_VALUE, "unsupported range: %g -> %g", s, e); return NULL; }
    if ((st > 0 && e < s) || (st < 0 && e > s)) {
        lm_set_error(LM_ERR_VALUE, "upper bound and larger bound inconsistent with step sign");
        return NULL;
    }
    double len = all_int ? (double)((lm_scalar_i64(end) - lm_scalar_i64(start) + lm_scalar_i64(step) +
                                     (st > 0 ? -1 : 1)) / lm_scalar_i64(step))
                         : ceil((e - s) / st);
    if (len > 1e15) { lm_set_error(LM_ERR_VALUE, "arange() would have too many elements"); return NULL; }
    int64_t n = (int64_t)len;
    lm_tensor *t = lm_empty(1, &n, dtype, LM_CPU);
    if (!t) return NULL;
    char *p = lm_bytes(t);
    if (all_int && !lm_is_floating(dtype)) {
        int64_t a = lm_scalar_i64(start), b = lm_scalar_i64(step);
        LM_DISPATCH(dtype, T, , for (int64_t i = 0; i < n; i++) ((T *)p)[i] = (T)(a + i * b);)
    } else {
        LM_DISPATCH(dtype, T, , for (int64_t i = 0; i < n; i++) ((T *)p)[i] = (T)(s + (double)i * st);)
    }
    return t;
}

/* made on the CPU (lm_cpu_ below moves it) */
static lm_tensor *host_linspace(lm_scalar start, lm_scalar end, int64_t steps, int dtype) {
    if (steps < 0) { lm_set_error(LM_ERR_VALUE, "number of steps must be non-negative"); return NULL; }
    if (dtype < 0) dtype = lm_get_default_dtype();
    lm_tensor *t = lm_empty(1, &steps, dtype, LM_CPU);
    if (!t) return NULL;
    double s = lm_scalar_f64(start), e = lm_scalar_f64(end), step = steps > 1 ? (e - s) / (double)(steps - 1) : 0;
    char *p = lm_bytes(t);
    /* from both ends, as PyTorch, so the last value is exactly `end` */
    LM_DISPATCH(dtype, T, ,
        for (int64_t i = 0; i < steps; i++)
            ((T *)p)[i] = (T)(steps == 1 ? s : i < steps / 2 ? s + step * (double)i : e - step * (double)(steps - 1 - i));)
    return t;
}

/* made on the CPU (lm_cpu_ below moves it) */
static lm_tensor *host_eye(int64_t n, int64_t m, int dtype) {
    if (m == INT64_MIN) m = n;
    if (n < 0 || m < 0) {
        lm_set_error(LM_ERR_VALUE, "n and m must be greater or equal to 0, got %lld and %lld", (long long)n, (long long)m);
        return NULL;
    }
    int64_t size[2] = {n, m};
    lm_scalar zero = {0, 0, 1};
    lm_tensor *t = lm_cpu_full(size, 2, zero, dtype < 0 ? lm_get_default_dtype() : dtype, LM_CPU);
    if (!t) return NULL;
    /* the bytes of a 1 in this dtype (16-bit floats and complex included), copied onto the diagonal */
    int64_t one_size[1] = {1};
    lm_scalar one = {1, 1, 1};
    lm_tensor *u = lm_cpu_full(one_size, 1, one, t->dtype, LM_CPU);
    if (!u) { lm_release(t); return NULL; }
    size_t item = lm_itemsize(t->dtype);
    char *p = lm_bytes(t), *q = lm_bytes(u);
    int64_t k = n < m ? n : m;
    for (int64_t i = 0; i < k; i++) memcpy(p + (size_t)(i * m + i) * item, q, item);
    lm_release(u);
    return t;
}

lm_tensor *lm_cpu_arange(lm_scalar start, lm_scalar end, lm_scalar step, int dtype, int device) {
    return lm_move_to(host_arange(start, end, step, dtype), device);
}

lm_tensor *lm_cpu_linspace(lm_scalar start, lm_scalar end, int64_t steps, int dtype, int device) {
    return lm_move_to(host_linspace(start, end, steps, dtype), device);
}

lm_tensor *lm_cpu_eye(int64_t n, int64_t m, int dtype, int device) {
    return lm_move_to(host_eye(n, m, dtype), device);
}
