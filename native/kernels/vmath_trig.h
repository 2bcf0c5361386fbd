/* atan, atan2, asin, acos for double (float through them, rounded once) and sin, cos, tan for float
 * (computed in double), in plain arithmetic with selects as vmath.h, so loops over them vectorise.
 *
 * Inverse functions: atan(ay / ax) is reduced by the sign of ax, by ay <-> ax (atan t = pi/2 -
 * atan 1/t) and by atan t = atan c + atan((t - c) / (1 + t c)) for c in {1/2, 1, 3/2} chosen by
 * ay / ax against 7/16, 11/16, 19/16, 39/16, leaving |u| <= 7/16; each u is one division whose
 * numerator is exact (Sterbenz). asin and acos use asin s = s + s z P(z) on |s| <= 1/2 and
 * asin x = pi/2 - 2 asin(sqrt((1 - x) / 2)) above, the square root carried in two parts.
 * The polynomials are Chebyshev interpolants of (f(x) - x) / x^3 in z = x^2 (computed with
 * mpmath, rounded to double): relative error below 2^-57 on the reduced ranges.
 *
 * float sin, cos, tan: x = n pi/2 + r in double. Below 2^24, Cody-Waite with pi/2 in three parts
 * (the first two of 29 bits, so n pi/2's products are exact for n < 2^24); from 2^24 on, where every
 * float is an integer, x 2/pi mod 4 from 2/pi in 28-bit chunks T_k (x T_k is exact: 24 + 28 bits).
 * The chunks whose products are multiples of 4 drop out, so five consecutive chunks, picked by
 * the size of x, cover the whole float range to 2^-87 (the closest a float comes to a multiple of
 * pi/2 is far above that). sin and cos on |r| <= pi/4 are Chebyshev fits to 2^-35.
 *
 * float64 sin, cos and tan stay on libm: a vectorised reduction that stays exact up to DBL_MAX
 * needs a table of 2/pi indexed by the exponent (a gather per chunk) in every lane.
 *
 * Included by vmath.h; C side only routes here (common.h's lm_f_* / lm_d_*). */
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
    double a0 = p[0] - 4.0 * floor(p[0] * 0.25), a1 = p[1] - 4.0 * floor(p[1] * 0.25);   /* exact */
    double i0 = (a0 + LM_RND_SHIFT) - LM_RND_SHIFT, i1 = (a1 + LM_RND_SHIFT) - LM_RND_SHIFT;
    double f = (a0 - i0) + (a1 - i1);   /* exact below 1/2 */
    double i2 = (f + LM_RND_SHIFT) - LM_RND_SHIFT;
    f = (f - i2) + p[2];
    double i3 = (f + LM_RND_SHIFT) - LM_RND_SHIFT;
    *n = (i0 + i1) + (i2 + i3);
    return ((f - i3) + p[3]) + p[4];
}

/* x = n pi/2 + r, |r| <= pi/4 (+ 2^-31) for a float x; n as an int64 */
LM_VM double lm_rem_pio2_float(double x, int64_t *n) {
    double xc = fabs(x) < 0x1p24 ? x : 0.0;
    double k = xc * 0x1.45f306dc9c883p-1 + LM_RND_SHIFT, q = k - LM_RND_SHIFT;
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

/* which: 0 sin, 1 cos, 2 tan (a constant: each caller's selects fold) */
LM_VM float lm_trigf(float x, int which) {
    int64_t n;
    double r = lm_rem_pio2_float(x, &n), z = r * r;
    double s = lm_sin_kernelf(r, z), c = lm_cos_kernelf(z);
    int64_t q = (n + which) & 3;   /* cos x = sin(x + pi/2) */
    double y = (q & 1) ? c : s;
    y = (q & 2) ? -y : y;
    double tn = (n & 1) ? -c / s : s / c;
    y = which == 2 ? tn : y;
    y = x == 0 && which != 1 ? (double)x : y;   /* keeps -0 */
    return (float)(fabsf(x) > FLT_MAX ? x - x : y);
}

LM_VM float lm_sinf(float x) { return lm_trigf(x, 0); }
LM_VM float lm_cosf(float x) { return lm_trigf(x, 1); }
LM_VM float lm_tanf(float x) { return lm_trigf(x, 2); }

#endif
