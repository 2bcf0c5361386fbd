/* sin, cos, tan, atan, atan2, asin, acos for float and double in plain arithmetic with selects, as
 * vmath.h, so loops over them vectorise; every lane computes every path, each kept finite.
 *
 * Inverse functions: atan(ay / ax) is reduced by the sign of ax, by ay <-> ax (atan t = pi/2 -
 * atan 1/t) and by atan t = atan c + atan((t - c) / (1 + t c)) for c in {1/2, 1, 3/2} chosen by
 * ay / ax against 7/16, 11/16, 19/16, 39/16, leaving |u| <= 7/16; each u is one division whose
 * numerator is exact (Sterbenz). asin and acos use asin s = s + s z P(z) on |s| <= 1/2 and
 * asin x = pi/2 - 2 asin(sqrt((1 - x) / 2)) above, the square root carried in two parts.
 * The polynomials are Chebyshev interpolants of (f(x) - x) / x^3 in z = x^2 (computed with
 * mpmath): relative error below 2^-57 (double), 2^-28 (float, coefficients rounded to float).
 *
 * float sin, cos, tan, in double: below 2^24, Cody-Waite with pi/2 in three parts (the first two
 * of 29 bits, so n pi/2's products are exact for n < 2^24); from 2^24 on, where every float is an
 * integer, x 2/pi mod 4 from 2/pi in 28-bit chunks T_k (x T_k is exact: 24 + 28 bits), no table:
 * the chunks whose products are multiples of 4 drop out, so five consecutive chunks, picked by the
 * size of x, cover the float range to 2^-87.
 * double sin, cos, tan: below 2^27, Cody-Waite with pi/2 in three 53-bit pieces through fma; above,
 * Payne-Hanek from 2/pi in 53-bit pieces (the four that matter picked by the exponent), the products
 * exact through fma (a libm call, correct but slow, where the target has no FMA), exact to 2^-158 of
 * x up to DBL_MAX. C side only (CUDA keeps its sin, cos, tan).
 * Every lane of a vector computes every path, so the large-argument reduction costs each element
 * as much as the rest of the function: the short forms (lm_sin_short, ...) leave it out, and the
 * generated loops take them for blocks of elements that lm_trig_short_ok admits whole (a body's
 * LM_PW_NAME_SHORT); both forms give the same bits there.
 *
 * Measured (tests/test_vmath_trig.py): float <= 0.85 ulp, double <= 1.1 ulp.
 *
 * Included by common.h; the C side routes lm_f_* / lm_d_* here. */
#ifndef LOOM_KERNELS_VMATH_TRIG_H
#define LOOM_KERNELS_VMATH_TRIG_H

#define LM_PIO2_HI 0x1.921fb54442d18p+0
#define LM_PIO2_LO 0x1.1a62633145c07p-54
#define LM_PI_HI 0x1.921fb54442d18p+1
#define LM_PI_LO 0x1.1a62633145c07p-53

/* atan u - u for |u| <= 7/16 */
LM_VM double lm_atan_tail(double u) {
    double z = u * u;
    double p = -0x1.5555555555555p-2 + z * (0x1.9999999999896p-3 + z * (-0x1.2492492482c3fp-3 +
               z * (0x1.c71c71bb73142p-4 + z * (-0x1.745d1500951f0p-4 + z * (0x1.3b136e32ddec5p-4 +
               z * (-0x1.110c23b2dece6p-4 + z * (0x1.e166d757a196ap-5 + z * (-0x1.ab1a96aa2f57ep-5 +
               z * (0x1.6f02101a1d0bbp-5 + z * (-0x1.0d1bd12c3fce2p-5 + z * 0x1.db21814ef1239p-7))))))))));
    return u * z * p;
}

/* atan(ay / ax) for ay, ax >= 0 (pi - it where back), both finite or one of them infinite, not both
 * zero; ay / ax up to 2^2000 */
LM_VM double lm_atan_ratio(double ay, double ax, bool back) {
    bool i1 = ay >= 0x1.cp-2 * ax, i2 = ay >= 0x1.6p-1 * ax, i3 = ay >= 0x1.3p0 * ax, i4 = ay >= 0x1.38p1 * ax;
    double num = ay, den = ax, bh = back ? LM_PI_HI : 0.0, bl = back ? LM_PI_LO : 0.0;
    num = i1 ? 2.0 * ay - ax : num;
    den = i1 ? 2.0 * ax + ay : den;
    bh = i1 ? (back ? 0x1.56c6e7397f5aep+1 : 0x1.dac670561bb4fp-2) : bh;   /* atan(1/2), pi - it */
    bl = i1 ? (back ? 0x1.660b64ece6f4bp-53 : 0x1.a2b7f222f65e2p-56) : bl;
    num = i2 ? ay - ax : num;
    den = i2 ? ay + ax : den;
    bh = i2 ? (back ? 0x1.2d97c7f3321d2p+1 : 0x1.921fb54442d18p-1) : bh;   /* pi/4, 3pi/4 */
    bl = i2 ? (back ? 0x1.a79394c9e8a0ap-54 : 0x1.1a62633145c07p-55) : bl;
    num = i3 ? 2.0 * ay - 3.0 * ax : num;
    den = i3 ? 2.0 * ax + 3.0 * ay : den;
    bh = i3 ? (back ? 0x1.145385fa3af71p+1 : 0x1.f730bd281f69bp-1) : bh;   /* atan(3/2), pi - it */
    bl = i3 ? (back ? 0x1.fa53523b6428fp-53 : 0x1.007887af0cbbdp-56) : bl;
    num = i4 ? -ax : num;
    den = i4 ? ay : den;
    bh = i4 ? LM_PIO2_HI : bh;
    bl = i4 ? LM_PIO2_LO : bl;
    double u = num / den, t = lm_atan_tail(u);
    double su = back ? -u : u, st = back ? -t : t;
    return bh + (su + (bl + st));
}

LM_VM double lm_atan(double x) {
    return copysign(lm_atan_ratio(fabs(x), 1.0, false), x);   /* NaN stays NaN through the division */
}

/* C99's atan2: the signs of zeros pick 0 or pi, inf / inf is pi/4 or 3pi/4 */
LM_VM double lm_atan2(double y, double x) {
    double ay = fabs(y), ax = fabs(x);
    double mn = ay < ax ? ay : ax, mx = ay < ax ? ax : ay;
    ay = mn > DBL_MAX ? 1.0 : ay;   /* both infinite: as 1, 1 */
    ax = mn > DBL_MAX ? 1.0 : ax;
    ax = ay == 0 ? 1.0 : ax;        /* 0 / 0: 0 or pi, as 0 / 1 */
    double s = mx > 0x1p1019 ? 0x1p-4 : 1.0;   /* keeps 3 ax and 2 ay finite */
    double r = lm_atan_ratio(ay * s, ax * s, lm_bits64(x) < 0);
    r = x != x ? x : r;
    r = y != y ? y : r;
    return copysign(r, y);
}

/* asin s - s = s z P(z), z = s^2 <= 1/4 */
LM_VM double lm_asin_tail(double z) {
    return z * (0x1.5555555555555p-3 + z * (0x1.3333333333388p-4 + z * (0x1.6db6db6dac1e0p-5 +
           z * (0x1.f1c71c7a52ba3p-6 + z * (0x1.6e8ba123e494cp-6 + z * (0x1.1c4efce23019fp-6 +
           z * (0x1.c990ad3d8fdcap-7 + z * (0x1.7b027ee1dd585p-7 + z * (0x1.3b49de7121487p-7 +
           z * (0x1.31622469ce5adp-7 + z * (0x1.8f193743418ffp-9 + z * (0x1.406192d124629p-6 +
           z * (-0x1.3b416bb7d9257p-6 + z * 0x1.e529c6fce9bb4p-6)))))))))))));
}

/* the parts shared by asin and acos: for |x| > 1/2, s = sqrt((1 - |x|) / 2) = sh + c with sh of 21
 * bits (so 2 sh is exact against pi/2 and pi) and asin s = sh + (c + s t); below, t for x itself */
typedef struct { double a, t, s, sh, c; } lm_asin_parts;
LM_VM lm_asin_parts lm_asin_split(double x) {
    lm_asin_parts p;
    p.a = fabs(x);
    double w = (1.0 - p.a) * 0.5;
    w = w > 0 ? w : 0.0;
    double z = p.a > 0.5 ? w : x * x;
    p.t = lm_asin_tail(z);
    p.s = sqrt(w);
    p.sh = lm_from_bits64(lm_bits64(p.s) & (int64_t)0xffffffff00000000ULL);
    double den = p.s + p.sh;
    p.c = (w - p.sh * p.sh) / (den > 0 ? den : 1.0);
    return p;
}

LM_VM double lm_asin(double x) {
    lm_asin_parts p = lm_asin_split(x);
    double big = (LM_PIO2_HI - 2.0 * p.sh) + (LM_PIO2_LO - 2.0 * (p.c + p.s * p.t));
    double y = p.a > 0.5 ? big : p.a + p.a * p.t;
    y = p.a > 1.0 ? NAN : y;
    y = x != x ? x : y;
    return copysign(y, x);
}

LM_VM double lm_acos(double x) {
    lm_asin_parts p = lm_asin_split(x);
    double pos = 2.0 * p.sh + 2.0 * (p.c + p.s * p.t);
    double neg = (LM_PI_HI - 2.0 * p.sh) + (LM_PI_LO - 2.0 * (p.c + p.s * p.t));
    double y = LM_PIO2_HI - (x + (x * p.t - LM_PIO2_LO));
    y = p.a > 0.5 ? (x > 0 ? pos : neg) : y;
    y = p.a > 1.0 ? NAN : y;
    return x != x ? x : y;
}

/* ---- the same in float (twice the lanes): shorter polynomials (2^-28 fits rounded to float), the
 * constants as float pairs; ~1 ulp */
LM_VM float lm_atan_tailf(float u) {
    float z = u * u;
    return u * z * (-0x1.555556p-2f + z * (0x1.999962p-3f + z * (-0x1.248544p-3f + z * (0x1.c4d4c2p-4f +
           z * (-0x1.5cb8f4p-4f + z * 0x1.8797f2p-5f)))));
}

LM_VM float lm_atan_ratiof(float ay, float ax, bool back) {
    bool i1 = ay >= 0x1.cp-2f * ax, i2 = ay >= 0x1.6p-1f * ax, i3 = ay >= 0x1.3p0f * ax, i4 = ay >= 0x1.38p1f * ax;
    float num = ay, den = ax, bh = back ? 0x1.921fb6p+1f : 0.0f, bl = back ? -0x1.777a5cp-24f : 0.0f;
    num = i1 ? 2.0f * ay - ax : num;
    den = i1 ? 2.0f * ax + ay : den;
    bh = i1 ? (back ? 0x1.56c6e8p+1f : 0x1.dac670p-2f) : bh;
    bl = i1 ? (back ? -0x1.8d014ap-24f : 0x1.586ed4p-28f) : bl;
    num = i2 ? ay - ax : num;
    den = i2 ? ay + ax : den;
    bh = i2 ? (back ? 0x1.2d97c8p+1f : 0x1.921fb6p-1f) : bh;
    bl = i2 ? (back ? -0x1.99bc5cp-28f : -0x1.777a5cp-26f) : bl;
    num = i3 ? 2.0f * ay - 3.0f * ax : num;
    den = i3 ? 2.0f * ax + 3.0f * ay : den;
    bh = i3 ? (back ? 0x1.145386p+1f : 0x1.f730bep-1f) : bh;
    bl = i3 ? (back ? -0x1.71423ap-29f : -0x1.afc12cp-26f) : bl;
    num = i4 ? -ax : num;
    den = i4 ? ay : den;
    bh = i4 ? 0x1.921fb6p+0f : bh;
    bl = i4 ? -0x1.777a5cp-25f : bl;
    float u = num / den, t = lm_atan_tailf(u);
    float su = back ? -u : u, st = back ? -t : t;
    return bh + (su + (bl + st));
}

LM_VM float lm_atanf(float x) { return copysignf(lm_atan_ratiof(fabsf(x), 1.0f, false), x); }

LM_VM float lm_atan2f(float y, float x) {
    float ay = fabsf(y), ax = fabsf(x);
    float mn = ay < ax ? ay : ax, mx = ay < ax ? ax : ay;
    ay = mn > FLT_MAX ? 1.0f : ay;
    ax = mn > FLT_MAX ? 1.0f : ax;
    ax = ay == 0 ? 1.0f : ax;
    float s = mx > 0x1p124f ? 0x1p-4f : 1.0f;
    float r = lm_atan_ratiof(ay * s, ax * s, lm_bits32(x) < 0);
    r = x != x ? x : r;
    r = y != y ? y : r;
    return copysignf(r, y);
}

/* sh keeps 12 bits of s */
typedef struct { float a, t, s, sh, c; } lm_asin_partsf;
LM_VM lm_asin_partsf lm_asin_splitf(float x) {
    lm_asin_partsf p;
    p.a = fabsf(x);
    float w = (1.0f - p.a) * 0.5f;
    w = w > 0 ? w : 0.0f;
    float z = p.a > 0.5f ? w : x * x;
    p.t = z * (0x1.555554p-3f + z * (0x1.333430p-4f + z * (0x1.6d5bbap-5f + z * (0x1.fd8da2p-6f +
          z * (0x1.18f91ep-6f + z * 0x1.13fed4p-5f)))));
    p.s = sqrtf(w);
    p.sh = lm_from_bits32(lm_bits32(p.s) & (int32_t)0xfffff000u);
    float den = p.s + p.sh;
    p.c = (w - p.sh * p.sh) / (den > 0 ? den : 1.0f);
    return p;
}

LM_VM float lm_asinf(float x) {
    lm_asin_partsf p = lm_asin_splitf(x);
    float big = (0x1.921fb6p+0f - 2.0f * p.sh) + (-0x1.777a5cp-25f - 2.0f * (p.c + p.s * p.t));
    float y = p.a > 0.5f ? big : p.a + p.a * p.t;
    y = p.a > 1.0f ? NAN : y;
    y = x != x ? x : y;
    return copysignf(y, x);
}

LM_VM float lm_acosf(float x) {
    lm_asin_partsf p = lm_asin_splitf(x);
    float pos = 2.0f * p.sh + 2.0f * (p.c + p.s * p.t);
    float neg = (0x1.921fb6p+1f - 2.0f * p.sh) + (-0x1.777a5cp-24f - 2.0f * (p.c + p.s * p.t));
    float y = 0x1.921fb6p+0f - (x + (x * p.t - -0x1.777a5cp-25f));
    y = p.a > 0.5f ? (x > 0 ? pos : neg) : y;
    y = p.a > 1.0f ? NAN : y;
    return x != x ? x : y;
}

/* ---- float sin, cos, tan in double ---- */

/* x 2/pi = n + f (|f| <= 1/2 + 2^-31) for a float x, |x| < 2^128; n mod 4 is what counts */
LM_VM double lm_rem_pio2_chunks(double x, double *n) {
    double a = fabs(x);
    double c[5] = {0x1.45f306c000000p-1, 0x1.c9c882a000000p-29, 0x1.4fe13a8000000p-59, 0x1.f47d4d0000000p-86,
                   0x1.bb81b6c000000p-113};
    double c1[5] = {0x1.c9c882a000000p-29, 0x1.4fe13a8000000p-59, 0x1.f47d4d0000000p-86, 0x1.bb81b6c000000p-113,
                    0x1.4acc9e0000000p-143};
    double c2[5] = {0x1.4fe13a8000000p-59, 0x1.f47d4d0000000p-86, 0x1.bb81b6c000000p-113, 0x1.4acc9e0000000p-143,
                    0x1.0e4107c000000p-170};
    double c3[5] = {0x1.f47d4d0000000p-86, 0x1.bb81b6c000000p-113, 0x1.4acc9e0000000p-143, 0x1.0e4107c000000p-170,
                    0x1.ca2c756000000p-197};
    double p[5];
    for (int k = 0; k < 5; k++) {   /* the chunks before the window give multiples of 4 */
        double t = a >= 0x1p53 ? c1[k] : c[k];
        t = a >= 0x1p81 ? c2[k] : t;
        t = a >= 0x1p109 ? c3[k] : t;
        p[k] = x * t;
    }
    /* exact: |a| <= 2 and no finer than p (a floor would turn a tiny negative p into 4 - tiny) */
    double a0 = p[0] - 4.0 * rint(p[0] * 0.25), a1 = p[1] - 4.0 * rint(p[1] * 0.25);
    double i0 = rint(a0), i1 = rint(a1);
    double f = (a0 - i0) + (a1 - i1);   /* exact below 1/2 */
    double i2 = rint(f);
    f = (f - i2) + p[2];
    double i3 = rint(f);
    *n = (i0 + i1) + (i2 + i3);
    return ((f - i3) + p[3]) + p[4];
}

/* x = n pi/2 + r, |r| <= pi/4 (+ 2^-31) for a float x; n as an int64 */
LM_VM double lm_rem_pio2_float(double x, int64_t *n) {
    double xc = fabs(x) < 0x1p24 ? x : 0.0;
    double q = rint(xc * 0x1.45f306dc9c883p-1);
    double r = ((xc - q * 0x1.921fb54000000p+0) - q * 0x1.10b4611000000p-30) - q * 0x1.4c4c6628b80dcp-59;
    double nh, f = lm_rem_pio2_chunks(fabs(x) < 0x1p24 ? 0x1p24 : x, &nh);
    double nb = fabs(x) < 0x1p24 ? q : nh;
    *n = lm_bits64(nb + LM_RND_SHIFT) - lm_bits64(LM_RND_SHIFT);   /* nb is an integer below 2^26 */
    return fabs(x) < 0x1p24 ? r : f * 0x1.921fb54442d18p+0;
}

LM_VM double lm_sin_kernelf(double r, double z) {
    return r + r * z * (-0x1.555555545e0acp-3 + z * (0x1.11110def2e1c9p-7 + z * (-0x1.a013a793b98cep-13 +
           z * 0x1.6dbe0838a06e9p-19)));
}

LM_VM double lm_cos_kernelf(double z) {
    return 1.0 - 0.5 * z + z * z * (0x1.5555555502cf4p-5 + z * (-0x1.6c16bf54e7232p-10 + z * (0x1.a015c47d920acp-16 +
           z * -0x1.25244e23e6e3ap-22)));
}

/* x = n pi/2 + r for |x| < 2^24 alone (the short reduction, for blocks that need no more) */
LM_VM double lm_rem_pio2_float_short(double x, int64_t *n) {
    double q = rint(x * 0x1.45f306dc9c883p-1);
    *n = lm_bits64(q + LM_RND_SHIFT) - lm_bits64(LM_RND_SHIFT);
    return ((x - q * 0x1.921fb54000000p+0) - q * 0x1.10b4611000000p-30) - q * 0x1.4c4c6628b80dcp-59;
}

/* sin, cos or tan from x = n pi/2 + r; which: 0 sin, 1 cos, 2 tan (a constant: each caller's
 * selects fold) */
LM_VM float lm_trigf_from(float x, double r, int64_t n, int which) {
    double z = r * r;
    double s = lm_sin_kernelf(r, z), c = lm_cos_kernelf(z);
    int64_t q = (n + which) & 3;   /* cos x = sin(x + pi/2) */
    double y = (q & 1) ? c : s;
    y = (q & 2) ? -y : y;
    double num = (n & 1) ? -c : s, den = (n & 1) ? s : c;   /* one division, not one a side */
    y = which == 2 ? num / den : y;
    y = x == 0 && which != 1 ? (double)x : y;   /* keeps -0 */
    return (float)(fabsf(x) > FLT_MAX ? x - x : y);
}

LM_VM float lm_trigf(float x, int which) {
    int64_t n;
    double r = lm_rem_pio2_float(x, &n);
    return lm_trigf_from(x, r, n, which);
}

LM_VM float lm_sinf(float x) { return lm_trigf(x, 0); }
LM_VM float lm_cosf(float x) { return lm_trigf(x, 1); }
LM_VM float lm_tanf(float x) { return lm_trigf(x, 2); }

/* The short forms: exact for |x| < 2^24 only (and NaN); a loop takes them for a block whose every
 * element lm_trig_shortf_ok admits, which spares it the chunked reduction's cost in every lane */
LM_VM bool lm_trig_shortf_ok(float x) { return !(fabsf(x) >= 0x1p24f); }
LM_VM float lm_trigf_short(float x, int which) {
    int64_t n;
    double r = lm_rem_pio2_float_short(x, &n);
    return lm_trigf_from(x, r, n, which);
}
LM_VM float lm_sin_shortf(float x) { return lm_trigf_short(x, 0); }
LM_VM float lm_cos_shortf(float x) { return lm_trigf_short(x, 1); }
LM_VM float lm_tan_shortf(float x) { return lm_trigf_short(x, 2); }

/* ---- double sin, cos, tan (C side only: the pieces of 2/pi are a host table) ---- */
#ifndef __CUDACC__
/* 2/pi = sum over t of LM_2OPI[t] 2^(-53 t): 53-bit integers (t = 0, the integer part, is 0) */
static const double lm_2opi_pieces[23] = {
    0x0.0p+0, 0x1.45f306dc9c882p+52, 0x1.4a7f09d5f47d4p+52, 0x1.a6ee06db14accp+52,
    0x1.3c439041fe516p+52, 0x1.d5ef5de2b0db8p+50, 0x1.2371d2126e970p+51, 0x1.924bba8274600p+45,
    0x1.21cfe1deb1cb1p+52, 0x1.4d39f74411af8p+50, 0x1.4baed1213a671p+52, 0x1.8135a2fbf209cp+52,
    0x1.91d639835339fp+52, 0x1.272117e2ef7e4p+51, 0x1.41d8ffc4bffeep+51, 0x1.02cc07f79788cp+52,
    0x1.6b414da3eda6cp+51, 0x1.fb3c9f2c26dd2p+51, 0x1.d18fd9a797fa8p+52, 0x1.6ba93dd63f5f2p+52,
    0x1.f17b3d0739f78p+52, 0x1.4a525d4d7f6bfp+52, 0x1.88fc6ae842b00p+51};

/* a mod 4 in [-2, 2] (exact, as in lm_rem_pio2_chunks), its nearest integer into *n and the rest (in
 * [-1/2, 1/2]) out */
LM_VM double lm_frac_mod4(double a, double *n) {
    double m = a - 4.0 * rint(a * 0.25), i = rint(m);
    *n += i;
    return m - i;
}

/* s + e = a + b exactly (Knuth's TwoSum) */
LM_VM double lm_two_sum(double a, double b, double *e) {
    double s = a + b, bb = s - a;
    *e += (a - (s - bb)) + (b - bb);
    return s;
}

/* w[k] = w[k + bit] for k < len where *rest >= bit (then less bit) */
LM_VM void lm_shift_stage(double *w, double *rest, int bit, int len) {
    bool on = *rest >= bit;
    *rest = on ? *rest - bit : *rest;
#pragma GCC unroll 19
    for (int k = 0; k < len; k++) w[k] = on ? w[k + bit] : w[k];
}

/* x = n pi/2 + (rh + rl), |rh| <= pi/4 (+ 2^-52), rh + rl to 2^-100 of it, for 2^-26 <= |x| <= DBL_MAX
 * (Payne-Hanek): x = m 2^(ex - 52) with m an integer, and the products of m with the pieces of 2/pi
 * before t0 = floor((ex - 1) / 53) are multiples of 4; four pieces from t0 on reach 2^-158 of x,
 * far below the 2^-61 that x 2/pi comes closest to an integer. Each product is an exact pair (fma),
 * its part above 1/2 goes to n (mod 4), the rest is summed in double-double. */
LM_VM double lm_rem_pio2_ph(double x, double *rl, double *n) {
    int64_t b = lm_bits64(x);
    int64_t ex = ((b >> 52) & 0x7ff) - 1023;
    double m = lm_from_bits64((b & (int64_t)0x800fffffffffffffULL) | 0x4330000000000000LL);
    double ed = lm_from_bits64(lm_bits64(LM_RND_SHIFT) + ex) - LM_RND_SHIFT;
    double td = floor((ed - 0.5) * (1.0 / 53));
    td = td < 0 ? 0.0 : td;
    double s0 = ed - 52.0 - 53.0 * td;   /* m 2^s0 scales the product with piece t0 */
    double sc = lm_from_bits64((lm_bits64(s0 + LM_RND_SHIFT) - lm_bits64(LM_RND_SHIFT) + 1023) << 52);
    /* pieces t0 .. t0 + 3 by a barrel shift over the bits of t0 (16, 8, 4, 2, 1): selects, since GCC
     * does not gather from a table next to the loop's stores (it cannot rule out their aliasing) */
    double w[35], rest = td;
#pragma GCC unroll 35
    for (int k = 0; k < 35; k++) w[k] = k < 23 ? lm_2opi_pieces[k] : 0.0;
    lm_shift_stage(w, &rest, 16, 19);
    lm_shift_stage(w, &rest, 8, 11);
    lm_shift_stage(w, &rest, 4, 7);
    lm_shift_stage(w, &rest, 2, 5);
    lm_shift_stage(w, &rest, 1, 4);
    double c0 = w[0], c1 = w[1], c2 = w[2], c3 = w[3];
    double h0 = m * c0, l0 = fma(m, c0, -h0), h1 = m * c1, l1 = fma(m, c1, -h1);
    double h2 = m * c2, l2 = fma(m, c2, -h2), h3 = m * c3, l3 = fma(m, c3, -h3);
    double sc1 = sc * 0x1p-53, sc2 = sc * 0x1p-106, sc3 = sc * 0x1p-159;
    double nn = 0.0, e = 0.0;
    double f = lm_frac_mod4(h0 * sc, &nn);
    f = lm_two_sum(f, lm_frac_mod4(l0 * sc, &nn), &e);
    f = lm_two_sum(f, lm_frac_mod4(h1 * sc1, &nn), &e);
    f = lm_two_sum(f, lm_frac_mod4(l1 * sc1, &nn), &e);
    f = lm_two_sum(f, lm_frac_mod4(h2 * sc2, &nn), &e);
    e += (l2 * sc2 + h3 * sc3) + l3 * sc3;
    double i = rint(f);
    f -= i;
    *n = nn + i;
    double s = f + e, el = (f - s) + e;   /* |f| >= |e| once f is reduced, or both are tiny */
    double rh = s * LM_PIO2_HI;
    *rl = fma(s, LM_PIO2_HI, -rh) + (s * LM_PIO2_LO + el * LM_PIO2_HI);
    return rh;
}

/* x = n pi/2 + (rh + rl) for |x| < 2^27 (Cody-Waite with pi/2 in three 53-bit pieces): x - n P1 is
 * exact in one fma (a multiple of 2^-53 below 1), n P2 an exact pair, and the neglected n P4 ~ 2^-134
 * is far below the 2^-62 that such x come closest to a multiple of pi/2 */
LM_VM double lm_rem_pio2_short(double x, double *rl, double *n) {
    double q = rint(x * 0x1.45f306dc9c883p-1);
    double t = fma(-q, LM_PIO2_HI, x);
    double ph = q * LM_PIO2_LO, pl = fma(q, LM_PIO2_LO, -ph);
    double e = 0.0, rh = lm_two_sum(t, -ph, &e);
    *rl = (e - pl) - q * -0x1.f1976b7ed8fbcp-110;
    *n = q;
    return rh;
}

/* sin and cos of r = rh + rl, |rh| <= pi/4, as w + cl and rh + sl (w = 1 - r^2/2): polynomials to 2^-57
 * with rl added to first order */
typedef struct { double s, sl, c, cl, w; } lm_sincos_parts;
LM_VM lm_sincos_parts lm_sincos_r(double rh, double rl) {
    lm_sincos_parts p;
    double z = rh * rh;
    double sp = -0x1.5555555555555p-3 + z * (0x1.1111111111110p-7 + z * (-0x1.a01a01a019938p-13 +
                z * (0x1.71de3a546095bp-19 + z * (-0x1.ae645412c560cp-26 + z * (0x1.61217f0b800d5p-33 +
                z * -0x1.ab17d404de5b3p-41)))));
    double cp = 0x1.5555555555555p-5 + z * (-0x1.6c16c16c16967p-10 + z * (0x1.a01a019f4eb01p-16 +
                z * (-0x1.27e4fa17da09ep-22 + z * (0x1.1eeb68e93b64cp-29 + z * -0x1.907da367a37cbp-37))));
    double hz = 0.5 * z;
    p.w = 1.0 - hz;
    p.sl = rh * z * sp + rl * (1.0 - hz), p.s = rh + p.sl;
    p.cl = ((1.0 - p.w) - hz) + (z * z * cp - rh * rl), p.c = p.w + p.cl;
    return p;
}

/* which: 0 sin, 1 cos, 2 tan, as lm_trigf */
LM_VM double lm_trig_from(double x, double rh, double rl, double nd, int which) {
    double a = fabs(x);
    lm_sincos_parts sc = lm_sincos_r(rh, rl);
    double s = sc.s, sl = sc.sl, c = sc.c, cl = sc.cl, w = sc.w;
    int64_t n = lm_bits64(nd + LM_RND_SHIFT) - lm_bits64(LM_RND_SHIFT);
    int64_t q = (n + which) & 3;
    double y = (q & 1) ? c : s;
    y = (q & 2) ? -y : y;
    /* tan = (nh + nl) / (dh + dl) from the unrounded sin and cos, the quotient corrected once by
     * its residual: sin / cos alone rounds three times (2.1 ulp) */
    double nh = (n & 1) ? -w : rh, nl = (n & 1) ? -cl : sl, dh = (n & 1) ? rh : w, dl = (n & 1) ? sl : cl;
    double q0 = (nh + nl) / (dh + dl);
    double tn = q0 + (fma(-q0, dh, nh) + (nl - q0 * dl)) / (dh + dl);
    y = which == 2 ? tn : y;
    y = x == 0 && which != 1 ? x : y;
    y = a > DBL_MAX ? x - x : y;
    return x != x ? x : y;
}

/* the short reduction below 2^27, as the short forms take it, so a result does not depend on
 * which form its block took; Payne-Hanek above */
LM_VM double lm_trig(double x, int which) {
    double a = fabs(x);
    bool sh = !(a >= 0x1p27);
    double nd, rl, rh = lm_rem_pio2_ph(sh || a > DBL_MAX ? 1.0 : x, &rl, &nd);
    double ns, rls, rhs = lm_rem_pio2_short(sh ? x : 0.0, &rls, &ns);
    return lm_trig_from(x, sh ? rhs : rh, sh ? rls : rl, sh ? ns : nd, which);
}

LM_VM double lm_sin(double x) { return lm_trig(x, 0); }
LM_VM double lm_cos(double x) { return lm_trig(x, 1); }
LM_VM double lm_tan(double x) { return lm_trig(x, 2); }

/* The short forms, as the float ones: |x| < 2^27 (and NaN) */
LM_VM bool lm_trig_short_ok(double x) { return !(fabs(x) >= 0x1p27); }
LM_VM double lm_trig_short(double x, int which) {
    double nd, rl, rh = lm_rem_pio2_short(x, &rl, &nd);
    return lm_trig_from(x, rh, rl, nd, which);
}
LM_VM double lm_sin_short(double x) { return lm_trig_short(x, 0); }
LM_VM double lm_cos_short(double x) { return lm_trig_short(x, 1); }
LM_VM double lm_tan_short(double x) { return lm_trig_short(x, 2); }

/* sin and cos of x - pi/4 for a finite x from one reduction (the Bessel functions' asymptotic forms): x =
 * n pi/2 + r, then r - pi/4 (r >= 0) or r + pi/4 with n - 1, as a pair, so that near a zero of either the
 * small result keeps its relative accuracy. The short reduction alone where short_only (|x| < 2^27), else
 * as lm_trig picks. */
LM_VM void lm_sincos_pio4(double x, bool short_only, double *sn, double *cs) {
    double nd, rl, rh;
    if (short_only) {
        rh = lm_rem_pio2_short(x, &rl, &nd);
    } else {
        bool sh = !(fabs(x) >= 0x1p27);
        double ndp, rlp, rhp = lm_rem_pio2_ph(sh ? 1.0 : x, &rlp, &ndp);
        double ns, rls, rhs = lm_rem_pio2_short(sh ? x : 0.0, &rls, &ns);
        rh = sh ? rhs : rhp, rl = sh ? rls : rlp, nd = sh ? ns : ndp;
    }
    double qh = rh >= 0 ? -0x1.921fb54442d18p-1 : 0x1.921fb54442d18p-1;   /* -+pi/4 */
    double ql = rh >= 0 ? -0x1.1a62633145c07p-55 : 0x1.1a62633145c07p-55;
    double e = 0.0, th = lm_two_sum(rh, qh, &e);
    double tl = e + (rl + ql);
    nd = rh >= 0 ? nd : nd - 1.0;
    lm_sincos_parts p = lm_sincos_r(th + tl, tl - ((th + tl) - th));
    int64_t n = lm_bits64(nd + LM_RND_SHIFT) - lm_bits64(LM_RND_SHIFT);
    double s = (n & 1) ? p.c : p.s, c = (n & 1) ? p.s : p.c;
    *sn = (n & 2) ? -s : s;
    *cs = ((n + 1) & 2) ? -c : c;
}
#endif

#endif
