/* The FFT passes over one precision: included by fft_plan.c once with FT = float and once
 * with FT = double (FN(name) names the instance). Complex numbers are interleaved (re, im).
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
    FN(stockham)(pl->sub, a, sub_scratch, par);
    for (int64_t k = 0; k < m; k++) {   /* times the filter, conjugated for the inverse that follows */
        FT ar = a[2 * k], ai = a[2 * k + 1];
        a[2 * k] = ar * b[2 * k] - ai * b[2 * k + 1];
        a[2 * k + 1] = -(ar * b[2 * k + 1] + ai * b[2 * k]);
    }
    FN(stockham)(pl->sub, a, sub_scratch, par);
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
    else FN(stockham)(pl, x, scratch, par);
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
