/* fmod and Python's % and // in plain arithmetic, so loops over them vectorise where libm's fmod (a loop over
 * the exponent difference) does not: fmod a b = a - n b with n = trunc(a / b), exact in one fma wherever
 * |a / b| < 2^52 (2^23 for float): n b is then exact, the remainder is representable, and n is trunc(a / b)
 * or, where a / b rounded up across an integer, one more, which leaves the remainder's sign opposite a's and
 * is undone by adding b. Loops take these forms (a body's LM_PW_NAME_SHORT) for blocks whose every pair
 * lm_fmod_short_ok admits: the same bits as libm's there (fmod is exact either way).
 * nextafter by its bits. C side only; CUDA keeps its fmod and nextafter. */
#ifndef LOOM_KERNELS_VMATH_FMOD_H
#define LOOM_KERNELS_VMATH_FMOD_H
#ifndef __CUDACC__

/* finite b != 0 and |a / b| < 2^52 (written so that it cannot overflow); false for any NaN */
LM_VM bool lm_fmod_short_ok(double a, double b) { return (fabs(a) * 0x1p-52 < fabs(b)) & (fabs(b) <= DBL_MAX); }
LM_VM bool lm_fmodf_short_ok(float a, float b) { return (fabsf(a) * 0x1p-23f < fabsf(b)) & (fabsf(b) <= FLT_MAX); }

LM_VM double lm_fmod_short(double a, double b) {
    double r = fma(-trunc(a / b), b, a);
    double rc = (lm_bits64(r) ^ lm_bits64(a)) < 0 ? r + copysign(b, a) : r;   /* n one too many */
    return r == 0 ? copysign(0.0, a) : rc;   /* fmod's zero has a's sign */
}

LM_VM float lm_fmodf_short(float a, float b) {
    float r = fmaf(-truncf(a / b), b, a);
    float rc = (lm_bits32(r) ^ lm_bits32(a)) < 0 ? r + copysignf(b, a) : r;
    return r == 0 ? copysignf(0.0f, a) : rc;
}

/* Python's %: lm_fmod_py and lm_fmod_pyf over the short fmod (b's sign for a nonzero remainder) */
LM_VM double lm_fmod_py_short(double a, double b) {
    double r = lm_fmod_short(a, b);
    double rb = (lm_bits64(r) ^ lm_bits64(b)) < 0 ? r + b : r;
    return r != 0 ? rb : r;
}

LM_VM float lm_fmod_pyf_short(float a, float b) {
    float r = lm_fmodf_short(a, b);
    float rb = (lm_bits32(r) ^ lm_bits32(b)) < 0 ? r + b : r;
    return r != 0 ? rb : r;
}

/* Python's //: lm_floordiv_py's steps over the short fmod, with selects (b != 0 here) */
LM_VM double lm_floordiv_py_short(double a, double b) {
    double mod = lm_fmod_short(a, b), div = (a - mod) / b;
    double dm = (lm_bits64(mod) ^ lm_bits64(b)) < 0 ? div - 1.0 : div;
    div = mod != 0 ? dm : div;
    double f = floor(div);
    double r = div - f > 0.5 ? f + 1.0 : f;
    return div != 0 ? r : copysign(0.0, a / b);
}

/* C99's nextafter: the neighbour of x towards y, y itself where they are equal, the smallest subnormal
 * (signed as y) after a zero, NaN for a NaN */
LM_VM double lm_nextafter(double x, double y) {
    int64_t ix = lm_bits64(x), step = x < y ? 1 : -1;
    step = ix < 0 ? -step : step;   /* a negative x's magnitude moves the other way */
    double r = lm_from_bits64(ix + step);
    r = x == 0 ? copysign(0x1p-1074, y) : r;
    r = x == y ? y : r;
    r = x != x ? x + y : r;
    return y != y ? x + y : r;
}

LM_VM float lm_nextafterf(float x, float y) {
    int32_t ix = lm_bits32(x), step = x < y ? 1 : -1;
    step = ix < 0 ? -step : step;
    float r = lm_from_bits32(ix + step);
    r = x == 0 ? copysignf(0x1p-149f, y) : r;
    r = x == y ? y : r;
    r = x != x ? x + y : r;
    return y != y ? x + y : r;
}

#endif
#endif
