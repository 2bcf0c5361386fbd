/* Argument checks run before an op writes anything (a pointwise header's
 * LM_PW_NAME_CHECK calls them; see ops_support.h), and the range check of
 * every Python number written into a tensor. */
#include <float.h>
#include <math.h>
#include "ops_support.h"

/* "Is any element zero" over one operand; ctx points at the bool to set. */
#define ZERO_SCAN(name, T)                                                     \
    static void name(char **d, const int64_t *s, int64_t n, const void *ctx) { \
        for (int64_t i = 0; i < n; i++)                                        \
            if (*(const T *)(d[0] + i * s[0]) == 0) { *(bool *)ctx = true; return; } \
    }
#define ZERO_SCAN_OF(E, T, N) ZERO_SCAN(zero_scan_##N, T)
LM_FOR_EACH_INTEGRAL(ZERO_SCAN_OF)
#define ZERO_SCAN_ENTRY(E, T, N) [E] = zero_scan_##N,
static const lm_loop_fn zero_scans[LM_NUM_DTYPES] = {LM_FOR_EACH_INTEGRAL(ZERO_SCAN_ENTRY)};

/* Integer // and % by zero have no value (C traps; PyTorch raises). The divisor is
 * looked at in the compute dtype, where 256 is a uint8 zero; an empty result
 * divides nothing, and otherwise broadcasting uses every divisor element. */
int lm_check_divisor(int compute, lm_tensor *dividend, lm_tensor *divisor) {
    /* (no scan, no integer division kernel either: the dtype lookup after the checks refuses it) */
    if (!zero_scans[compute] || !lm_numel(dividend) || !lm_numel(divisor)) return 0;
    /* as PyTorch, only the CPU checks (the device kernels give 0 rather than trap) */
    if (divisor->device != LM_CPU) return 0;
    lm_tensor *d = lm_cast(divisor, compute);
    if (!d) return -1;
    lm_iter it;
    bool zero = false;
    int err = lm_iter_init(&it, 1, &d, d->ndim, d->shape);
    if (!err) {
        lm_iter_order_by(&it, 0);
        lm_iter_run(&it, zero_scans[compute], &zero);
    }
    lm_release(d);
    if (err) return -1;
    return zero ? lm_set_error(LM_ERR_ZERODIV, "ZeroDivisionError: integer division or modulo by zero") : 0;
}

/* NumPy's rule, which PyTorch follows for a Python number exponent: an integer
 * (or bool) tensor to a negative integer power has no integer value. A tensor
 * exponent is not checked (its negative powers truncate toward zero). */
int lm_check_int_pow(lm_tensor *self, lm_tensor *exponent) {
    if (!lm_is_integral(self->dtype, true) || !(exponent->flags & LM_FLAG_WRAPPED_NUMBER)) return 0;
    lm_scalar e;
    if (lm_item(exponent, &e)) return -1;
    if (e.kind == 1 && e.i < 0)
        return lm_set_error(LM_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    return 0;
}

/* add/sub's alpha multiplies in the compute dtype: a float alpha has no integer
 * value (PyTorch refuses rather than truncate), a bool one means only "or" in bool. */
int lm_check_alpha(int compute, lm_scalar alpha) {
    if (alpha.kind == 0 && compute != LM_BOOL)
        return lm_set_error(LM_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
    if (alpha.kind == 3 && !lm_is_complex(compute))
        return lm_set_error(LM_ERR_RUNTIME, "For non-complex input tensors, argument alpha must not be a complex number.");
    if (alpha.kind == 2 && !lm_is_floating(compute) && !lm_is_complex(compute))
        return lm_set_error(LM_ERR_RUNTIME,
                            "For integral input tensors, argument alpha must not be a floating point number.");
    return 0;
}

/* bool - bool has no bool value, and bool - number is almost always a mask
 * being inverted: PyTorch refuses both (on the inputs' dtypes) and names the fix. */
int lm_check_sub_bool(lm_tensor *self, lm_tensor *other) {
    if (self->dtype == LM_BOOL && other->dtype == LM_BOOL)
        return lm_set_error(LM_ERR_TYPE, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                                         "Use the `^` or `logical_xor()` operator instead.");
    if (self->dtype == LM_BOOL || other->dtype == LM_BOOL)
        return lm_set_error(LM_ERR_TYPE, "Subtraction, the `-` operator, with a bool tensor is not supported. "
                                         "If you are trying to invert a mask, use the `~` or `logical_not()` "
                                         "operator instead.");
    return 0;
}

/* A Python number operand (a wrapped 0-d tensor) that an op writes as it is,
 * as where does, must fit the result dtype; a real tensor operand is cast. */
int lm_check_wrapped_fits(int dtype, lm_tensor *t) {
    if (!(t->flags & LM_FLAG_WRAPPED_NUMBER)) return 0;
    lm_scalar v;
    return lm_item(t, &v) || lm_check_scalar_fits(v, dtype);
}

/* PyTorch's rule for a Python number written into a tensor of `dtype`:
 * anything goes into bool; an int fits a float, and an integer dtype within
 * its range, where unsigned ones also take negatives down to -max (two's
 * complement: -1 is 255 in uint8; any int64 fits uint64, and 2^63 and up fit
 * it alone); a float fits an integer dtype within its
 * range, never as NaN or an infinity, and float32 up to FLT_MAX or inf. */
static bool fits(lm_scalar v, int dtype) {
    if (v.kind <= 0 || !lm_dtype_valid(dtype)) return true;
    int cat = lm_dtype_category(dtype);
    if (cat == LM_CAT_BOOL || cat == LM_CAT_COMPLEX) return true;
    if (v.kind == 3) {   /* a complex number fits a real dtype only without an imaginary part */
        if (v.im != 0) return false;
        v.kind = 2;
    }
    if (cat != LM_CAT_INTEGRAL) {   /* floating: a finite number beyond the largest is out */
        double max = lm_dtype_float_max[dtype];
        return v.kind == 1 || v.kind == 4 || max == 0 || isnan(v.d) || isinf(v.d) || fabs(v.d) <= max;
    }
    double lo = lm_dtype_int_lo[dtype], hi = lm_dtype_int_hi[dtype];   /* [lo, hi) */
    bool wide = lm_itemsize(dtype) == 8;   /* every int64 value fits; hi - 1 is inexact */
    if (v.kind == 4) return wide && lo == 0;   /* 2^63 and up: uint64's alone */
    if (v.kind == 1) {
        if (wide) return true;
        return lo == 0 ? v.i > -(int64_t)hi && v.i < (int64_t)hi : v.i >= (int64_t)lo && v.i < (int64_t)hi;
    }
    /* integral: 2^63 itself is out of int64 (PyTorch lets it through and wraps) */
    return v.d >= lo && (wide ? v.d < hi : v.d <= hi - 1);
}

int lm_check_scalar_fits(lm_scalar v, int dtype) {
    if (fits(v, dtype)) return 0;
    return lm_set_error(LM_ERR_OVERFLOW, "value cannot be converted to type %s without overflow", lm_dtype_name(dtype));
}
