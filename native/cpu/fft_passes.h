/* The FFT passes over one precision: included by fft_plan.c once with FT = float and once
 * with FT = double (FN(name) names the instance). Complex numbers are interleaved (re, im) in
 * the passes of one transform (Bluestein's, the packed real transforms' and lengths below the
 * four-step); the split batches and the four-step below keep re and im apart.
 *
 * A Stockham pass of radix p over a sub-length `len` at stride s (m = len / p) reads
 * x[q + s (j + r m)] for r < p, takes their p-point DFT A_k and writes A_k W_len^(jk) to
 * y[q + s (p j + k)]: decimation in frequency, results in natural order, no bit reversal. */

/* the k = 0 twiddle is 1: every pass stores it without a multiply */
static inline void FN(put)(FT *restrict y, FT re, FT im, FT wr, FT wi) {
    y[0] = re * wr - im * wi;
    y[1] = re * wi + im * wr;
}

static void FN(pass2)(int64_t len, int64_t s, int64_t step, const FT *restrict tw, const FT *restrict x, FT *restrict y, int64_t jlo,
                      int64_t jhi, int64_t qlo, int64_t qhi) {
    int64_t m = len / 2;
    for (int64_t j = jlo; j < jhi; j++) {
        FT wr = tw[2 * j * step], wi = tw[2 * j * step + 1];
        const FT *restrict a = x + 2 * s * j, *restrict b = x + 2 * s * (j + m);
        FT *restrict y0 = y + 2 * s * (2 * j), *restrict y1 = y + 2 * s * (2 * j + 1);
        for (int64_t q = qlo; q < qhi; q++) {
            FT ar = a[2 * q], ai = a[2 * q + 1], br = b[2 * q], bi = b[2 * q + 1];
            y0[2 * q] = ar + br;
            y0[2 * q + 1] = ai + bi;
            FN(put)(y1 + 2 * q, ar - br, ai - bi, wr, wi);
        }
    }
}

static void FN(pass4)(int64_t len, int64_t s, int64_t step, const FT *restrict tw, const FT *restrict x, FT *restrict y, int64_t jlo,
                      int64_t jhi, int64_t qlo, int64_t qhi) {
    int64_t m = len / 4;
    for (int64_t j = jlo; j < jhi; j++) {
        FT w1r = tw[2 * j * step], w1i = tw[2 * j * step + 1];
        FT w2r = tw[4 * j * step], w2i = tw[4 * j * step + 1];
        FT w3r = tw[6 * j * step], w3i = tw[6 * j * step + 1];
        const FT *restrict a0 = x + 2 * s * j, *restrict a1 = x + 2 * s * (j + m),
                 *restrict a2 = x + 2 * s * (j + 2 * m), *restrict a3 = x + 2 * s * (j + 3 * m);
        FT *restrict y0 = y + 2 * s * (4 * j);
        for (int64_t q = qlo; q < qhi; q++) {
            FT t0r = a0[2 * q] + a2[2 * q], t0i = a0[2 * q + 1] + a2[2 * q + 1];
            FT t1r = a0[2 * q] - a2[2 * q], t1i = a0[2 * q + 1] - a2[2 * q + 1];
            FT t2r = a1[2 * q] + a3[2 * q], t2i = a1[2 * q + 1] + a3[2 * q + 1];
            FT t3r = a1[2 * q] - a3[2 * q], t3i = a1[2 * q + 1] - a3[2 * q + 1];
            y0[2 * q] = t0r + t2r;
            y0[2 * q + 1] = t0i + t2i;
            FN(put)(y0 + 2 * (s + q), t1r + t3i, t1i - t3r, w1r, w1i);       /* t1 - i t3 */
            FN(put)(y0 + 2 * (2 * s + q), t0r - t2r, t0i - t2i, w2r, w2i);
            FN(put)(y0 + 2 * (3 * s + q), t1r - t3i, t1i + t3r, w3r, w3i);   /* t1 + i t3 */
        }
    }
}

/* any radix up to LM_FFT_MAX_RADIX: the p-point DFT directly, its roots W_p^(rk) from the table */
static void FN(passp)(int p, int64_t len, int64_t s, int64_t n, const FT *restrict tw, const FT *restrict x, FT *restrict y, int64_t jlo,
                      int64_t jhi, int64_t qlo, int64_t qhi) {
    int64_t m = len / p, step = n / len, root = n / p;
    FT wr[LM_FFT_MAX_RADIX], wi[LM_FFT_MAX_RADIX], ar[LM_FFT_MAX_RADIX], ai[LM_FFT_MAX_RADIX];
    for (int64_t j = jlo; j < jhi; j++) {
        for (int k = 0; k < p; k++) {
            wr[k] = tw[2 * (j * k * step)];
            wi[k] = tw[2 * (j * k * step) + 1];
        }
        for (int64_t q = qlo; q < qhi; q++) {
            for (int r = 0; r < p; r++) {
                ar[r] = x[2 * (q + s * (j + r * m))];
                ai[r] = x[2 * (q + s * (j + r * m)) + 1];
            }
            for (int k = 0; k < p; k++) {
                FT sr = 0, si = 0;
                for (int r = 0; r < p; r++) {
                    int64_t t = (int64_t)((r * k) % p) * root;
                    FT cr = tw[2 * t], ci = tw[2 * t + 1];
                    sr += ar[r] * cr - ai[r] * ci;
                    si += ar[r] * ci + ai[r] * cr;
                }
                FN(put)(y + 2 * (q + s * (p * j + k)), sr, si, wr[k], wi[k]);
            }
        }
    }
}

typedef struct { int p; int64_t len, s, n; const FT *tw, *x; FT *y; bool by_q; } FN(pass_ctx);

/* a block of a pass: j in [lo, hi) (every q), or, by_q, q in [lo, hi) (every j) */
static void FN(pass_range)(int64_t lo, int64_t hi, void *vc) {
    const FN(pass_ctx) *c = vc;
    int64_t m = c->len / c->p, jlo = c->by_q ? 0 : lo, jhi = c->by_q ? m : hi;
    int64_t qlo = c->by_q ? lo : 0, qhi = c->by_q ? hi : c->s;
    if (c->p == 4) FN(pass4)(c->len, c->s, c->n / c->len, c->tw, c->x, c->y, jlo, jhi, qlo, qhi);
    else if (c->p == 2) FN(pass2)(c->len, c->s, c->n / c->len, c->tw, c->x, c->y, jlo, jhi, qlo, qhi);
    else FN(passp)(c->p, c->len, c->s, c->n, c->tw, c->x, c->y, jlo, jhi, qlo, qhi);
}

/* The Stockham passes of a plan over x (n complex), with y (n complex) as the other buffer; with
 * `par`, each pass split over threads (its j-blocks are independent). */
static void FN(stockham)(const lm_fft_plan *pl, FT *x, FT *y, bool par) {
    int64_t n = pl->n, len = n, s = 1;
    FT *src = x, *dst = y;
    for (int f = 0; f < pl->nf; f++) {
        int p = pl->fac[f];
        FN(pass_ctx) c = {p, len, s, n, pl->tw, src, dst, len / p < s};   /* split the longer of j, q */
        int64_t total = c.by_q ? s : len / p;
        if (par) lm_parallel_for(total, 8 * n, FN(pass_range), &c);
        else FN(pass_range)(0, total, &c);
        len /= p;
        s *= p;
        FT *t = src; src = dst; dst = t;
    }
    if (src != x) memcpy(x, src, sizeof(FT) * 2 * (size_t)n);
}

static void FN(four)(const lm_fft_plan *pl, FT *x, FT *scratch, bool par);

/* a plan's forward transform of x (n complex), y (n complex) its scratch */
static void FN(transform)(const lm_fft_plan *pl, FT *x, FT *y, bool par) {
    if (pl->r1) FN(four)(pl, x, y, par);
    else FN(stockham)(pl, x, y, par);
}

static void FN(conj)(FT *x, int64_t n) {
    for (int64_t i = 0; i < n; i++) x[2 * i + 1] = -x[2 * i + 1];
}

/* Bluestein: x_k c_k (c_k = e^(-i pi k^2 / n)), zero-padded to m, convolved with the conjugate chirp
 * through two power-of-two FFTs (the filter's is kept, scaled by 1/m), times c_k again. */
static void FN(bluestein)(const lm_fft_plan *pl, FT *x, FT *scratch, bool par) {
    const FT *c = pl->chirp, *b = pl->filt;
    int64_t n = pl->n, m = pl->m;
    FT *a = scratch, *sub_scratch = scratch + 2 * m;
    for (int64_t k = 0; k < n; k++) {
        FT xr = x[2 * k], xi = x[2 * k + 1];
        a[2 * k] = xr * c[2 * k] - xi * c[2 * k + 1];
        a[2 * k + 1] = xr * c[2 * k + 1] + xi * c[2 * k];
    }
    memset(a + 2 * n, 0, sizeof(FT) * 2 * (size_t)(m - n));
    FN(transform)(pl->sub, a, sub_scratch, par);
    for (int64_t k = 0; k < m; k++) {   /* times the filter, conjugated for the inverse that follows */
        FT ar = a[2 * k], ai = a[2 * k + 1];
        a[2 * k] = ar * b[2 * k] - ai * b[2 * k + 1];
        a[2 * k + 1] = -(ar * b[2 * k + 1] + ai * b[2 * k]);
    }
    FN(transform)(pl->sub, a, sub_scratch, par);
    for (int64_t k = 0; k < n; k++) {   /* conj(a) c_k */
        FT ar = a[2 * k], ai = -a[2 * k + 1];
        x[2 * k] = ar * c[2 * k] - ai * c[2 * k + 1];
        x[2 * k + 1] = ar * c[2 * k + 1] + ai * c[2 * k];
    }
}

static void FN(run)(const lm_fft_plan *pl, FT *x, FT *scratch, bool forward, bool par) {
    if (pl->n == 1) return;
    if (!forward) FN(conj)(x, pl->n);   /* the inverse: conj(F conj(x)) */
    if (pl->sub) FN(bluestein)(pl, x, scratch, par);
    else FN(transform)(pl, x, scratch, par);
    if (!forward) FN(conj)(x, pl->n);
}

/* the chirp and the filter of a Bluestein plan (its sub-plan made) */
static void FN(bluestein_tables)(lm_fft_plan *pl, const double *chirp, FT *work) {
    int64_t n = pl->n, m = pl->m;
    FT *c = pl->chirp, *b = pl->filt;
    for (int64_t k = 0; k < 2 * n; k++) c[k] = (FT)chirp[k];
    memset(b, 0, sizeof(FT) * 2 * (size_t)m);
    for (int64_t k = 0; k < n; k++) {
        b[2 * k] = (FT)chirp[2 * k];
        b[2 * k + 1] = (FT)-chirp[2 * k + 1];
        if (k) {
            b[2 * (m - k)] = b[2 * k];
            b[2 * (m - k) + 1] = b[2 * k + 1];
        }
    }
    FN(stockham)(pl->sub, b, work, false);
    for (int64_t k = 0; k < 2 * m; k++) b[k] /= (FT)m;
}

/* Real transforms of even length n = 2h through one complex transform of length h (the plan's),
 * the samples paired as z_j = x_2j + i x_2j+1; rtw holds W_n^k = e^(-2 pi i k / n), k <= h.
 * r2c: x (n reals, in buf) -> X_0..X_h (h + 1 complex, in buf). */
static void FN(r2c)(const lm_fft_plan *pl, FT *buf, FT *scratch, bool par) {
    int64_t h = pl->n;
    const FT *w = pl->rtw;
    FN(run)(pl, buf, scratch, true, par);
    FT z0r = buf[0], z0i = buf[1];
    buf[0] = z0r + z0i; buf[1] = 0;             /* X_0 = E_0 + O_0 */
    buf[2 * h] = z0r - z0i; buf[2 * h + 1] = 0; /* X_h = E_0 - O_0 */
    for (int64_t k = 1; 2 * k <= h; k++) {
        int64_t kk = h - k;
        FT ar = buf[2 * k], ai = buf[2 * k + 1], br = buf[2 * kk], bi = buf[2 * kk + 1];
        /* E = (a + conj b) / 2, O = -i (a - conj b) / 2, X_k = E + W^k O; the same with a, b swapped */
        FT er = (ar + br) / 2, ei = (ai - bi) / 2, or_ = (ai + bi) / 2, oi = -(ar - br) / 2;
        FT xr = er + w[2 * k] * or_ - w[2 * k + 1] * oi, xi = ei + w[2 * k] * oi + w[2 * k + 1] * or_;
        FT fr = (br + ar) / 2, fi = (bi - ai) / 2, gr = (bi + ai) / 2, gi = -(br - ar) / 2;
        FT yr = fr + w[2 * kk] * gr - w[2 * kk + 1] * gi, yi = fi + w[2 * kk] * gi + w[2 * kk + 1] * gr;
        buf[2 * k] = xr; buf[2 * k + 1] = xi;
        buf[2 * kk] = yr; buf[2 * kk + 1] = yi;
    }
}

/* c2r: X_0..X_h (h + 1 complex, in buf; the imaginary parts of X_0 and X_h ignored) -> the n reals
 * of the unnormalized inverse, in buf: Z_k = P_k + i Q_k, P_k = X_k + X_k+h, Q_k = (X_k - X_k+h) W^-k,
 * X_k+h = conj X_h-k, then z = the inverse transform of Z, whose parts are the even and odd samples. */
static void FN(c2r)(const lm_fft_plan *pl, FT *buf, FT *scratch, bool par) {
    int64_t h = pl->n;
    const FT *w = pl->rtw;
    FT x0 = buf[0], xh = buf[2 * h];
    buf[0] = x0 + xh;
    buf[1] = x0 - xh;
    for (int64_t k = 1; 2 * k <= h; k++) {
        int64_t kk = h - k;
        FT ar = buf[2 * k], ai = buf[2 * k + 1], br = buf[2 * kk], bi = buf[2 * kk + 1];
        /* for k: X_k = a, X_k+h = conj b; for h - k: X = b, X_h-k+h = conj a */
        FT pr = ar + br, pi = ai - bi, dr = ar - br, di = ai + bi;
        FT qr = dr * w[2 * k] + di * w[2 * k + 1], qi = di * w[2 * k] - dr * w[2 * k + 1];
        FT sr = br + ar, si = bi - ai, er = br - ar, ei = bi + ai;
        FT tr = er * w[2 * kk] + ei * w[2 * kk + 1], ti = ei * w[2 * kk] - er * w[2 * kk + 1];
        buf[2 * k] = pr - qi; buf[2 * k + 1] = pi + qr;     /* P + i Q */
        buf[2 * kk] = sr - ti; buf[2 * kk + 1] = si + tr;
    }
    FN(run)(pl, buf, scratch, false, par);
}

/* ---- Split batches: nb transforms side by side (nb <= LANES), element k of transform b at re[k nb + b]
 * and im[k nb + b]. A pass over such a batch is the Stockham pass above with the stride s scaled by nb,
 * so every pass's inner loop runs over s nb >= nb contiguous values (re and im apart): gcc vectorises it
 * across transforms and butterflies at full width, where the interleaved passes get one complex per
 * vector. The butterflies take restrict pointers one by one: with the pointers derived inside the
 * loop, gcc 12 gives up on the radix-4 loop ("complicated access pattern"). */
#define FN_LANES ((int64_t)(64 / sizeof(FT)))   /* a 64-byte line of each part: one AVX-512 vector, two AVX2 */

static inline void FN(mul)(FT *yr, FT *yi, int64_t q, FT ur, FT ui, FT wr, FT wi) {
    yr[q] = ur * wr - ui * wi;
    yi[q] = ur * wi + ui * wr;
}

static inline void FN(bfly2)(int64_t sv, const FT *restrict ar, const FT *restrict ai, const FT *restrict br,
                      const FT *restrict bi, FT *restrict y0r, FT *restrict y0i, FT *restrict y1r, FT *restrict y1i,
                      FT wr, FT wi) {
    for (int64_t q = 0; q < sv; q++) {
        FT ur = ar[q] - br[q], ui = ai[q] - bi[q];
        y0r[q] = ar[q] + br[q];
        y0i[q] = ai[q] + bi[q];
        FN(mul)(y1r, y1i, q, ur, ui, wr, wi);
    }
}

static inline void FN(bfly4)(int64_t sv, const FT *restrict a0r, const FT *restrict a0i, const FT *restrict a1r,
                      const FT *restrict a1i, const FT *restrict a2r, const FT *restrict a2i, const FT *restrict a3r,
                      const FT *restrict a3i, FT *restrict y0r, FT *restrict y0i, FT *restrict y1r, FT *restrict y1i,
                      FT *restrict y2r, FT *restrict y2i, FT *restrict y3r, FT *restrict y3i, const FT *w) {
    FT w1r = w[0], w1i = w[1], w2r = w[2], w2i = w[3], w3r = w[4], w3i = w[5];
    for (int64_t q = 0; q < sv; q++) {
        FT t0r = a0r[q] + a2r[q], t0i = a0i[q] + a2i[q], t1r = a0r[q] - a2r[q], t1i = a0i[q] - a2i[q];
        FT t2r = a1r[q] + a3r[q], t2i = a1i[q] + a3i[q], t3r = a1r[q] - a3r[q], t3i = a1i[q] - a3i[q];
        y0r[q] = t0r + t2r;
        y0i[q] = t0i + t2i;
        FN(mul)(y1r, y1i, q, t1r + t3i, t1i - t3r, w1r, w1i);   /* t1 - i t3 */
        FN(mul)(y2r, y2i, q, t0r - t2r, t0i - t2i, w2r, w2i);
        FN(mul)(y3r, y3i, q, t1r - t3i, t1i + t3r, w3r, w3i);   /* t1 + i t3 */
    }
}

/* radix 8: a radix-2 step (a_r +- a_r+4, the difference times W_8^r), then a 4-point DFT of each half,
 * the sums giving the even outputs and the differences the odd ones */
static inline void FN(bfly8)(int64_t sv, const FT *restrict a0r, const FT *restrict a0i, const FT *restrict a1r,
                      const FT *restrict a1i, const FT *restrict a2r, const FT *restrict a2i, const FT *restrict a3r,
                      const FT *restrict a3i, const FT *restrict a4r, const FT *restrict a4i, const FT *restrict a5r,
                      const FT *restrict a5i, const FT *restrict a6r, const FT *restrict a6i, const FT *restrict a7r,
                      const FT *restrict a7i, FT *restrict y0r, FT *restrict y0i, FT *restrict y1r, FT *restrict y1i,
                      FT *restrict y2r, FT *restrict y2i, FT *restrict y3r, FT *restrict y3i, FT *restrict y4r,
                      FT *restrict y4i, FT *restrict y5r, FT *restrict y5i, FT *restrict y6r, FT *restrict y6i,
                      FT *restrict y7r, FT *restrict y7i, const FT *w) {
    const FT h = (FT)0.70710678118654752440;
    for (int64_t q = 0; q < sv; q++) {
        FT b0r = a0r[q] + a4r[q], b0i = a0i[q] + a4i[q], c0r = a0r[q] - a4r[q], c0i = a0i[q] - a4i[q];
        FT b1r = a1r[q] + a5r[q], b1i = a1i[q] + a5i[q], d1r = a1r[q] - a5r[q], d1i = a1i[q] - a5i[q];
        FT b2r = a2r[q] + a6r[q], b2i = a2i[q] + a6i[q], c2r = a2i[q] - a6i[q], c2i = a6r[q] - a2r[q];   /* times -i */
        FT b3r = a3r[q] + a7r[q], b3i = a3i[q] + a7i[q], d3r = a3r[q] - a7r[q], d3i = a3i[q] - a7i[q];
        FT c1r = (d1r + d1i) * h, c1i = (d1i - d1r) * h;     /* times (1 - i) / sqrt 2 */
        FT c3r = (d3i - d3r) * h, c3i = -(d3r + d3i) * h;    /* times (-1 - i) / sqrt 2 */
        FT t0r = b0r + b2r, t0i = b0i + b2i, t1r = b0r - b2r, t1i = b0i - b2i;
        FT t2r = b1r + b3r, t2i = b1i + b3i, t3r = b1r - b3r, t3i = b1i - b3i;
        y0r[q] = t0r + t2r;
        y0i[q] = t0i + t2i;
        FN(mul)(y2r, y2i, q, t1r + t3i, t1i - t3r, w[2], w[3]);
        FN(mul)(y4r, y4i, q, t0r - t2r, t0i - t2i, w[6], w[7]);
        FN(mul)(y6r, y6i, q, t1r - t3i, t1i + t3r, w[10], w[11]);
        FT u0r = c0r + c2r, u0i = c0i + c2i, u1r = c0r - c2r, u1i = c0i - c2i;
        FT u2r = c1r + c3r, u2i = c1i + c3i, u3r = c1r - c3r, u3i = c1i - c3i;
        FN(mul)(y1r, y1i, q, u0r + u2r, u0i + u2i, w[0], w[1]);
        FN(mul)(y3r, y3i, q, u1r + u3i, u1i - u3r, w[4], w[5]);
        FN(mul)(y5r, y5i, q, u0r - u2r, u0i - u2i, w[8], w[9]);
        FN(mul)(y7r, y7i, q, u1r - u3i, u1i + u3r, w[12], w[13]);
    }
}

/* radices 3 and 5 (lengths like 1000 or 12000): the DFT's symmetric pairs, a_r +- a_p-r */
static inline void FN(bfly3)(int64_t sv, const FT *restrict a0r, const FT *restrict a0i, const FT *restrict a1r,
                             const FT *restrict a1i, const FT *restrict a2r, const FT *restrict a2i, FT *restrict y0r,
                             FT *restrict y0i, FT *restrict y1r, FT *restrict y1i, FT *restrict y2r, FT *restrict y2i,
                             const FT *w) {
    const FT s = (FT)0.86602540378443864676;   /* sin(2 pi / 3) */
    for (int64_t q = 0; q < sv; q++) {
        FT t1r = a1r[q] + a2r[q], t1i = a1i[q] + a2i[q], t2r = a1r[q] - a2r[q], t2i = a1i[q] - a2i[q];
        FT mr = a0r[q] - (FT)0.5 * t1r, mi = a0i[q] - (FT)0.5 * t1i;
        y0r[q] = a0r[q] + t1r;
        y0i[q] = a0i[q] + t1i;
        FN(mul)(y1r, y1i, q, mr + s * t2i, mi - s * t2r, w[0], w[1]);
        FN(mul)(y2r, y2i, q, mr - s * t2i, mi + s * t2r, w[2], w[3]);
    }
}

static inline void FN(bfly5)(int64_t sv, const FT *restrict a0r, const FT *restrict a0i, const FT *restrict a1r,
                             const FT *restrict a1i, const FT *restrict a2r, const FT *restrict a2i, const FT *restrict a3r,
                             const FT *restrict a3i, const FT *restrict a4r, const FT *restrict a4i, FT *restrict y0r,
                             FT *restrict y0i, FT *restrict y1r, FT *restrict y1i, FT *restrict y2r, FT *restrict y2i,
                             FT *restrict y3r, FT *restrict y3i, FT *restrict y4r, FT *restrict y4i, const FT *w) {
    const FT c1 = (FT)0.30901699437494742410, c2 = (FT)-0.80901699437494742410;   /* cos(2 pi k / 5) */
    const FT s1 = (FT)0.95105651629515357212, s2 = (FT)0.58778525229247312917;    /* sin(2 pi k / 5) */
    for (int64_t q = 0; q < sv; q++) {
        FT t1r = a1r[q] + a4r[q], t1i = a1i[q] + a4i[q], t2r = a2r[q] + a3r[q], t2i = a2i[q] + a3i[q];
        FT t3r = a1r[q] - a4r[q], t3i = a1i[q] - a4i[q], t4r = a2r[q] - a3r[q], t4i = a2i[q] - a3i[q];
        FT m1r = a0r[q] + c1 * t1r + c2 * t2r, m1i = a0i[q] + c1 * t1i + c2 * t2i;
        FT m2r = a0r[q] + c2 * t1r + c1 * t2r, m2i = a0i[q] + c2 * t1i + c1 * t2i;
        FT n1r = s1 * t3r + s2 * t4r, n1i = s1 * t3i + s2 * t4i;
        FT n2r = s2 * t3r - s1 * t4r, n2i = s2 * t3i - s1 * t4i;
        y0r[q] = a0r[q] + t1r + t2r;
        y0i[q] = a0i[q] + t1i + t2i;
        FN(mul)(y1r, y1i, q, m1r + n1i, m1i - n1r, w[0], w[1]);   /* m1 - i n1 */
        FN(mul)(y2r, y2i, q, m2r + n2i, m2i - n2r, w[2], w[3]);
        FN(mul)(y3r, y3i, q, m2r - n2i, m2i + n2r, w[4], w[5]);
        FN(mul)(y4r, y4i, q, m1r - n1i, m1i + n1r, w[6], w[7]);   /* m1 + i n1 */
    }
}

/* any radix up to LM_FFT_MAX_RADIX: y_k = W^(jk) sum_r a_r W_p^(rk), accumulated a row at a time */
static void FN(bflyp)(int p, int64_t sv, int64_t root, const FT *restrict tw, const FT *const *ar, const FT *const *ai,
                      FT *restrict y0r, FT *restrict y0i, const FT *w) {
    for (int k = 0; k < p; k++) {
        FT *restrict yr = y0r + k * sv, *restrict yi = y0i + k * sv;
        memcpy(yr, ar[0], sizeof(FT) * (size_t)sv);
        memcpy(yi, ai[0], sizeof(FT) * (size_t)sv);
        for (int r = 1; r < p; r++) {
            int64_t t = (int64_t)((r * k) % p) * root;
            FT cr = tw[2 * t], ci = tw[2 * t + 1];
            const FT *restrict xr = ar[r], *restrict xi = ai[r];
            for (int64_t q = 0; q < sv; q++) {
                yr[q] += xr[q] * cr - xi[q] * ci;
                yi[q] += xr[q] * ci + xi[q] * cr;
            }
        }
        if (k) {
            FT wr = w[2 * (k - 1)], wi = w[2 * (k - 1) + 1];
            for (int64_t q = 0; q < sv; q++) FN(mul)(yr, yi, q, yr[q], yi[q], wr, wi);
        }
    }
}

/* One split pass of radix p over sub-length len (the batch folded into sv = s nb): the butterflies of
 * block j in turn. sv is often exactly a vector or two (the first passes): those get constant copies. */
static inline void FN(bpass_sv)(int p, int64_t len, int64_t sv, int64_t n, const FT *tw, const FT *xr, const FT *xi,
                                FT *yr, FT *yi) {
    int64_t m = len / p, step = n / len;
    const FT *ar[LM_FFT_MAX_RADIX], *ai[LM_FFT_MAX_RADIX];
    FT w[2 * LM_FFT_MAX_RADIX];
    for (int64_t j = 0; j < m; j++) {
        for (int k = 1; k < p; k++) {   /* W_len^(jk) */
            w[2 * (k - 1)] = tw[2 * (j * k * step)];
            w[2 * (k - 1) + 1] = tw[2 * (j * k * step) + 1];
        }
        for (int r = 0; r < p; r++) {
            ar[r] = xr + sv * (j + r * m);
            ai[r] = xi + sv * (j + r * m);
        }
        FT *y0r = yr + sv * p * j, *y0i = yi + sv * p * j;
        if (p == 8)
            FN(bfly8)(sv, ar[0], ai[0], ar[1], ai[1], ar[2], ai[2], ar[3], ai[3], ar[4], ai[4], ar[5], ai[5], ar[6], ai[6],
                      ar[7], ai[7], y0r, y0i, y0r + sv, y0i + sv, y0r + 2 * sv, y0i + 2 * sv, y0r + 3 * sv, y0i + 3 * sv,
                      y0r + 4 * sv, y0i + 4 * sv, y0r + 5 * sv, y0i + 5 * sv, y0r + 6 * sv, y0i + 6 * sv, y0r + 7 * sv,
                      y0i + 7 * sv, w);
        else if (p == 4)
            FN(bfly4)(sv, ar[0], ai[0], ar[1], ai[1], ar[2], ai[2], ar[3], ai[3], y0r, y0i, y0r + sv, y0i + sv,
                      y0r + 2 * sv, y0i + 2 * sv, y0r + 3 * sv, y0i + 3 * sv, w);
        else if (p == 2) FN(bfly2)(sv, ar[0], ai[0], ar[1], ai[1], y0r, y0i, y0r + sv, y0i + sv, w[0], w[1]);
        else if (p == 3)
            FN(bfly3)(sv, ar[0], ai[0], ar[1], ai[1], ar[2], ai[2], y0r, y0i, y0r + sv, y0i + sv, y0r + 2 * sv,
                      y0i + 2 * sv, w);
        else if (p == 5)
            FN(bfly5)(sv, ar[0], ai[0], ar[1], ai[1], ar[2], ai[2], ar[3], ai[3], ar[4], ai[4], y0r, y0i, y0r + sv,
                      y0i + sv, y0r + 2 * sv, y0i + 2 * sv, y0r + 3 * sv, y0i + 3 * sv, y0r + 4 * sv, y0i + 4 * sv, w);
        else FN(bflyp)(p, sv, n / p, tw, ar, ai, y0r, y0i, w);
    }
}

static void FN(bpass)(int p, int64_t len, int64_t sv, int64_t n, const FT *tw, const FT *xr, const FT *xi, FT *yr, FT *yi) {
    if (sv == FN_LANES) FN(bpass_sv)(p, len, FN_LANES, n, tw, xr, xi, yr, yi);
    else if (sv == 2 * FN_LANES) FN(bpass_sv)(p, len, 2 * FN_LANES, n, tw, xr, xi, yr, yi);
    else FN(bpass_sv)(p, len, sv, n, tw, xr, xi, yr, yi);
}

/* The forward transforms of a split batch of nb (re, im), with (wr, wi) the other buffers (n nb each);
 * returns true when the result lies in (wr, wi). */
static bool FN(batch)(const lm_fft_plan *pl, int64_t nb, FT *re, FT *im, FT *wr, FT *wi) {
    int64_t n = pl->n, len = n, s = 1;
    FT *xr = re, *xi = im, *yr = wr, *yi = wi;
    for (int f = 0; f < pl->nbf; f++) {
        int p = pl->bfac[f];
        FN(bpass)(p, len, s * nb, n, pl->tw, xr, xi, yr, yi);
        len /= p;
        s *= p;
        FT *t = xr; xr = yr; yr = t;
        t = xi; xi = yi; yi = t;
    }
    return xr != re;
}

/* ---- Four-step: a long transform of n = n1 n2 (n = n2 i1 + i2, k = k1 + n1 k2) as n2 transforms of
 * length n1 down the columns of x seen as an n1 x n2 matrix, a twiddle W_n^(i2 k1), then n1 transforms of
 * length n2 along the rows of the result, each step in split batches of LANES columns or rows (which fit
 * the L2 cache), so the data streams through memory twice instead of once per pass. */
typedef struct {
    const lm_fft_plan *pl;
    const FT *in;             /* read by step 1 (conjugated for an inverse); out: written by step 2 */
    FT *out, *yr, *yi, *work; /* yr, yi: the intermediate by column blocks (n1 x nb each), whose rows a
                                 block of step 1 writes in one stream (rows of n2 apart would all fall
                                 in a few cache sets); work: per thread */
    FT sr, si;                /* the output's scale (si: negated for an inverse) */
    int64_t per, kk;          /* kk: the twiddle W^(i2 k1) as W^(i2 kk a) W^(i2 c), k1 = kk a + c */
} FN(four_ctx);

/* the four-step's copies, each inner loop with restrict parameters (gcc 12 vectorises these where it
 * leaves the same loops scalar with restrict locals) */
static inline void FN(deint)(int64_t nb, const FT *restrict src, FT *restrict dr, FT *restrict di, FT si) {
    for (int64_t b = 0; b < nb; b++) { dr[b] = src[2 * b]; di[b] = si * src[2 * b + 1]; }
}

static inline void FN(inter)(int64_t nb, const FT *restrict vr, const FT *restrict vi, FT *restrict dst, FT sr, FT si) {
    for (int64_t b = 0; b < nb; b++) { dst[2 * b] = sr * vr[b]; dst[2 * b + 1] = si * vi[b]; }
}

/* y = v a c: a and c the two halves of the twiddle */
static inline void FN(twmul)(int64_t nb, const FT *restrict ar, const FT *restrict ai, const FT *restrict cr,
                             const FT *restrict ci, const FT *restrict vr, const FT *restrict vi, FT *restrict yr,
                             FT *restrict yi) {
    for (int64_t b = 0; b < nb; b++) {
        FT w_r = ar[b] * cr[b] - ai[b] * ci[b], w_i = ar[b] * ci[b] + ai[b] * cr[b];
        FN(mul)(yr, yi, b, vr[b], vi[b], w_r, w_i);
    }
}

/* nb rows of n (row b at src + b ld) into a batch: dst[k nb + b] */
static inline void FN(tin)(int64_t n, int64_t nb, const FT *restrict src, int64_t ld, FT *restrict dst) {
    for (int64_t k = 0; k < n; k++)
        for (int64_t b = 0; b < nb; b++) dst[k * nb + b] = src[b * ld + k];
}

/* one block of nb columns from c0: gathered, transformed, times the twiddles, into the intermediate
 * (inline, so that nb = LANES, the usual case, is a constant: the copies vectorise without gathers) */
static inline void FN(four_col_block)(const FN(four_ctx) *c, int64_t c0, int64_t nb, FT *br, FT *bi, FT *wr, FT *wi,
                                      FT *tar, FT *tai, FT *tcr, FT *tci) {
    const lm_fft_plan *pl = c->pl;
    const FT *tw = pl->tw;
    int64_t n = pl->n, n1 = pl->r1->n, n2 = pl->r2->n, L = FN_LANES, kk = c->kk, na = (n1 + kk - 1) / kk;
    FT sg = c->si < 0 ? -1 : 1;
    for (int64_t i1 = 0; i1 < n1; i1++) FN(deint)(nb, c->in + 2 * (n2 * i1 + c0), br + i1 * nb, bi + i1 * nb, sg);
    bool sw = FN(batch)(pl->r1, nb, br, bi, wr, wi);
    const FT *rr = sw ? wr : br, *ri = sw ? wi : bi;
    for (int64_t a = 0; a < na; a++)
        for (int64_t b = 0; b < nb; b++) {
            int64_t e = (c0 + b) * a * kk % n;
            tar[a * L + b] = tw[2 * e];
            tai[a * L + b] = tw[2 * e + 1];
        }
    for (int64_t cc = 0; cc < kk; cc++)
        for (int64_t b = 0; b < nb; b++) {
            int64_t e = (c0 + b) * cc;
            tcr[cc * L + b] = tw[2 * e];
            tci[cc * L + b] = tw[2 * e + 1];
        }
    for (int64_t k1 = 0; k1 < n1; k1++) {
        int64_t a = k1 / kk * L, cc = k1 % kk * L;
        FN(twmul)(nb, tar + a, tai + a, tcr + cc, tci + cc, rr + k1 * nb, ri + k1 * nb, c->yr + c0 * n1 + k1 * nb,
                  c->yi + c0 * n1 + k1 * nb);
    }
}

static void FN(four_cols)(int t, int nt, void *vc) {
    const FN(four_ctx) *c = vc;
    int64_t n1 = c->pl->r1->n, n2 = c->pl->r2->n, L = FN_LANES, kk = c->kk, na = (n1 + kk - 1) / kk;
    int64_t nblk = (n2 + L - 1) / L, lo = nblk * t / nt, hi = nblk * (t + 1) / nt;
    FT *br = c->work + t * c->per, *bi = br + n1 * L, *wr = bi + n1 * L, *wi = wr + n1 * L;
    FT *tar = wi + n1 * L, *tai = tar + na * L, *tcr = tai + na * L, *tci = tcr + kk * L;
    for (int64_t blk = lo; blk < hi; blk++) {
        int64_t c0 = blk * L;
        if (n2 - c0 >= L) FN(four_col_block)(c, c0, FN_LANES, br, bi, wr, wi, tar, tai, tcr, tci);
        else FN(four_col_block)(c, c0, n2 - c0, br, bi, wr, wi, tar, tai, tcr, tci);
    }
}

/* one block of nb rows from k0: gathered across the rows, transformed, into x in its final order */
static inline void FN(four_row_block)(const FN(four_ctx) *c, int64_t k0, int64_t nb, FT *br, FT *bi, FT *wr, FT *wi) {
    int64_t n1 = c->pl->r1->n, n2 = c->pl->r2->n;
    for (int64_t c0 = 0; c0 < n2; c0 += FN_LANES) {   /* the 16 x 16 tiles of the column blocks */
        int64_t o = c0 * n1 + k0 * FN_LANES;
        if (n2 - c0 >= FN_LANES) {
            FN(tin)(FN_LANES, nb, c->yr + o, FN_LANES, br + c0 * nb);
            FN(tin)(FN_LANES, nb, c->yi + o, FN_LANES, bi + c0 * nb);
        } else {
            int64_t nc = n2 - c0;
            FN(tin)(nc, nb, c->yr + c0 * n1 + k0 * nc, nc, br + c0 * nb);
            FN(tin)(nc, nb, c->yi + c0 * n1 + k0 * nc, nc, bi + c0 * nb);
        }
    }
    bool sw = FN(batch)(c->pl->r2, nb, br, bi, wr, wi);
    const FT *rr = sw ? wr : br, *ri = sw ? wi : bi;
    for (int64_t k2 = 0; k2 < n2; k2++) FN(inter)(nb, rr + k2 * nb, ri + k2 * nb, c->out + 2 * (k0 + n1 * k2), c->sr, c->si);
}

static void FN(four_rows)(int t, int nt, void *vc) {
    const FN(four_ctx) *c = vc;
    int64_t n1 = c->pl->r1->n, n2 = c->pl->r2->n, L = FN_LANES;
    int64_t nblk = (n1 + L - 1) / L, lo = nblk * t / nt, hi = nblk * (t + 1) / nt;
    FT *br = c->work + t * c->per, *bi = br + n2 * L, *wr = bi + n2 * L, *wi = wr + n2 * L;
    for (int64_t blk = lo; blk < hi; blk++) {
        int64_t k0 = blk * L;
        if (n1 - k0 >= L) FN(four_row_block)(c, k0, FN_LANES, br, bi, wr, wi);
        else FN(four_row_block)(c, k0, n1 - k0, br, bi, wr, wi);
    }
}

/* in (n complex) through the four-step into out (which may be in), scratch (n complex) holding the
 * intermediate, the output scaled (conj: the inverse, as conj(F conj(in))); false without the memory for
 * the threads' batches */
static bool FN(four_to)(const lm_fft_plan *pl, const FT *in, FT *out, FT *scratch, bool par, bool conj, FT scale) {
    int64_t n1 = pl->r1->n, n2 = pl->r2->n, L = FN_LANES, kk = 1;
    while (kk * kk < n1) kk++;
    int64_t na = (n1 + kk - 1) / kk, nmax = n1 > n2 ? n1 : n2;
    int nt = par ? lm_get_num_threads() : 1;
    FN(four_ctx) c = {pl, in, out, scratch, scratch + pl->n, NULL, scale, conj ? -scale : scale,
                      (4 * nmax * L + 2 * (na + kk) * L + 15) / 16 * 16, kk};
    if (!(c.work = aligned_alloc(64, sizeof(FT) * (size_t)(c.per * nt)))) return false;
    lm_parallel_parts(nt, par, FN(four_cols), &c);
    lm_parallel_parts(nt, par, FN(four_rows), &c);
    free(c.work);
    return true;
}

static void FN(four)(const lm_fft_plan *pl, FT *x, FT *scratch, bool par) {
    if (!FN(four_to)(pl, x, x, scratch, par, false, 1)) FN(stockham)(pl, x, scratch, par);
}

/* The r2c of a split batch: nb real rows of length 2h paired as z_j = x_2j + i x_2j+1 in (re, im), h the
 * plan's length; X_0..X_h of each row into the pair the transform left free. Returns true when they lie
 * in (wr, wi). The butterflies of r2c above, across the rows. */
static inline void FN(r2c_split)(int64_t h, int64_t nb, const FT *restrict w, const FT *restrict zr,
                                 const FT *restrict zi, FT *restrict xr, FT *restrict xi) {
    for (int64_t b = 0; b < nb; b++) {
        xr[b] = zr[b] + zi[b];
        xi[b] = 0;
        xr[h * nb + b] = zr[b] - zi[b];
        xi[h * nb + b] = 0;
    }
    for (int64_t k = 1; 2 * k <= h; k++) {
        int64_t kk = h - k;
        FT wkr = w[2 * k], wki = w[2 * k + 1], wjr = w[2 * kk], wji = w[2 * kk + 1];
        const FT *ar = zr + k * nb, *ai = zi + k * nb, *br = zr + kk * nb, *bi = zi + kk * nb;
        FT *x0r = xr + k * nb, *x0i = xi + k * nb, *x1r = xr + kk * nb, *x1i = xi + kk * nb;
        for (int64_t b = 0; b < nb; b++) {
            FT er = (ar[b] + br[b]) / 2, ei = (ai[b] - bi[b]) / 2, or_ = (ai[b] + bi[b]) / 2, oi = -(ar[b] - br[b]) / 2;
            x0r[b] = er + wkr * or_ - wki * oi;
            x0i[b] = ei + wkr * oi + wki * or_;
            FT fr = (br[b] + ar[b]) / 2, fi = (bi[b] - ai[b]) / 2, gr = (bi[b] + ai[b]) / 2, gi = -(br[b] - ar[b]) / 2;
            x1r[b] = fr + wjr * gr - wji * gi;
            x1i[b] = fi + wjr * gi + wji * gr;
        }
    }
}

static bool FN(batch_r2c)(const lm_fft_plan *pl, int64_t nb, FT *re, FT *im, FT *wr, FT *wi) {
    bool sw = FN(batch)(pl, nb, re, im, wr, wi);
    if (sw) FN(r2c_split)(pl->n, nb, pl->rtw, wr, wi, re, im);
    else FN(r2c_split)(pl->n, nb, pl->rtw, re, im, wr, wi);
    return !sw;
}

/* The c2r of a split batch: X_0..X_h of nb rows in (xr, xi) (the imaginary parts of X_0 and X_h
 * ignored) -> conj(Z) in (zr, zi), Z_k = P_k + i Q_k as in c2r above, across the rows; conj because
 * the inverse runs as conj(F conj Z). */
static inline void FN(c2r_split)(int64_t h, int64_t nb, const FT *restrict w, const FT *restrict xr,
                                 const FT *restrict xi, FT *restrict zr, FT *restrict zi) {
    for (int64_t b = 0; b < nb; b++) {
        zr[b] = xr[b] + xr[h * nb + b];
        zi[b] = -(xr[b] - xr[h * nb + b]);
    }
    for (int64_t k = 1; 2 * k <= h; k++) {
        int64_t kk = h - k;
        FT wkr = w[2 * k], wki = w[2 * k + 1], wjr = w[2 * kk], wji = w[2 * kk + 1];
        const FT *ar = xr + k * nb, *ai = xi + k * nb, *br = xr + kk * nb, *bi = xi + kk * nb;
        FT *z0r = zr + k * nb, *z0i = zi + k * nb, *z1r = zr + kk * nb, *z1i = zi + kk * nb;
        for (int64_t b = 0; b < nb; b++) {
            FT pr = ar[b] + br[b], pi = ai[b] - bi[b], dr = ar[b] - br[b], di = ai[b] + bi[b];
            FT qr = dr * wkr + di * wki, qi = di * wkr - dr * wki;
            FT sr = br[b] + ar[b], si = bi[b] - ai[b], er = br[b] - ar[b], ei = bi[b] + ai[b];
            FT tr = er * wjr + ei * wji, ti = ei * wjr - er * wji;
            z0r[b] = pr - qi;
            z0i[b] = -(pi + qr);
            z1r[b] = sr - ti;
            z1i[b] = -(si + tr);
        }
    }
}

/* returns true when F(conj Z) lies in (wr, wi): the samples are its real parts and minus its imaginary */
static bool FN(batch_c2r)(const lm_fft_plan *pl, int64_t nb, FT *re, FT *im, FT *wr, FT *wi) {
    FN(c2r_split)(pl->n, nb, pl->rtw, re, im, wr, wi);
    return !FN(batch)(pl, nb, wr, wi, re, im);
}
