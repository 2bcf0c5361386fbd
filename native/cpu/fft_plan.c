/* FFT plans: a length's factors and twiddles (and, for lengths with a prime factor
 * above LM_FFT_MAX_RADIX, Bluestein's chirp and filter over a power-of-two plan),
 * cached per length and precision. The passes are fft_passes.h, stamped per precision: interleaved
 * Stockham passes for one transform, split batches (re and im apart, transforms side by side) for
 * rows and for the four-step's columns and rows. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "loom.h"
#include "fft_plan.h"
#include "parallel.h"

#define LM_FFT_MAX_RADIX 13
#define LM_FFT_CACHE 16
#define LM_FFT_FOUR_MIN 256          /* from here a single transform goes four-step (n1 >= 16: whole batches) */
#define LM_FFT_BATCH_MAX (1 << 14)   /* below it rows go in split batches (16 rows of it fill half the L2) */

struct lm_fft_plan {
    int64_t n;
    bool dbl;
    int nf, fac[64];        /* Stockham radices, in pass order */
    int nbf, bfac[64];      /* the split batches' radices (8s first), in pass order */
    lm_fft_plan *r1, *r2;   /* four-step: the plans of the column (n1) and row (n2) lengths (else NULL) */
    void *tw;               /* n roots W_n^t = e^(-2 pi i t / n), interleaved */
    lm_fft_plan *sub;       /* Bluestein: the power-of-two plan of length m (else NULL) */
    int64_t m;
    void *chirp, *filt;     /* Bluestein: n chirp values e^(-i pi k^2 / n); FFT_m of the conjugate chirp / m */
    void *rtw;              /* a real plan (of a real length 2n): W_2n^k for k <= n (else NULL) */
    int refs;
    bool cached;
};

#define FT float
#define FN(name) name##_f
#include "fft_passes.h"
#undef FT
#undef FN
#define FT double
#define FN(name) name##_d
#include "fft_passes.h"
#undef FT
#undef FN

static void plan_free(lm_fft_plan *p) {
    if (!p) return;
    plan_free(p->sub);
    plan_free(p->r1);
    plan_free(p->r2);
    free(p->tw);
    free(p->chirp);
    free(p->filt);
    free(p->rtw);
    free(p);
}

/* radices 4 first (fewest passes), then 2, 3, 5, ...; false when a prime factor is too big */
static bool factor(lm_fft_plan *p) {
    int64_t n = p->n;
    p->nf = 0;
    while (n % 4 == 0) { p->fac[p->nf++] = 4; n /= 4; }
    for (int r = 2; r <= LM_FFT_MAX_RADIX && n > 1; r++)
        while (n % r == 0) { p->fac[p->nf++] = r; n /= r; }
    return n == 1;
}

/* the split passes' radices: 8s, with a leftover 2 or 4 of the power of two as one 4 or two (8 x 2 is
 * as many passes as 4 x 4 and costs more), then the odd primes */
static void factor_split(lm_fft_plan *p) {
    int64_t n = p->n;
    int e = 0;
    while (n % 2 == 0) { n /= 2; e++; }
    int eights = e / 3, rem = e % 3;
    if (rem == 1 && eights) { eights--; rem = 4; }
    p->nbf = 0;
    for (int i = 0; i < eights; i++) p->bfac[p->nbf++] = 8;
    if (rem == 4) { p->bfac[p->nbf++] = 4; p->bfac[p->nbf++] = 4; }
    else if (rem == 2) p->bfac[p->nbf++] = 4;
    else if (rem == 1) p->bfac[p->nbf++] = 2;
    for (int r = 3; r <= LM_FFT_MAX_RADIX && n > 1; r++)
        while (n % r == 0) { p->bfac[p->nbf++] = r; n /= r; }
}

static size_t item(const lm_fft_plan *p) { return p->dbl ? sizeof(double) : sizeof(float); }

static lm_fft_plan *plan_build(int64_t n, bool dbl) {
    lm_fft_plan *p = calloc(1, sizeof *p);
    if (!p) goto oom;
    p->n = n;
    p->dbl = dbl;
    if (factor(p)) {
        factor_split(p);
        if (!(p->tw = malloc(item(p) * 2 * (size_t)n))) goto oom;
        for (int64_t t = 0; t < n; t++) {
            double a = -2.0 * M_PI * (double)t / (double)n, re = cos(a), im = sin(a);
            if (dbl) { ((double *)p->tw)[2 * t] = re; ((double *)p->tw)[2 * t + 1] = im; }
            else { ((float *)p->tw)[2 * t] = (float)re; ((float *)p->tw)[2 * t + 1] = (float)im; }
        }
        if (n >= LM_FFT_FOUR_MIN) {   /* n1: the divisor nearest sqrt(n) from below */
            int64_t n1 = 1;
            for (int64_t d = 1; d * d <= n; d++)
                if (n % d == 0) n1 = d;
            if (n1 >= 16) {
                if (!(p->r1 = plan_build(n1, dbl)) || !(p->r2 = plan_build(n / n1, dbl))) {
                    plan_free(p);
                    return NULL;
                }
            }
        }
        return p;
    }
    p->nf = 0;
    p->m = 1;
    while (p->m < 2 * n - 1) p->m *= 2;
    p->sub = plan_build(p->m, dbl);
    p->chirp = malloc(item(p) * 2 * (size_t)n);
    p->filt = malloc(item(p) * 2 * (size_t)p->m);
    double *chirp = malloc(sizeof(double) * 2 * (size_t)n);
    void *work = malloc(item(p) * 2 * (size_t)p->m);
    if (!p->sub || !p->chirp || !p->filt || !chirp || !work) { free(chirp); free(work); goto oom; }
    for (int64_t k = 0, sq = 0; k < n; k++) {   /* sq = k^2 mod 2n, exact in integers */
        double a = -M_PI * (double)sq / (double)n;
        chirp[2 * k] = cos(a);
        chirp[2 * k + 1] = sin(a);
        sq = (sq + 2 * k + 1) % (2 * n);
    }
    if (dbl) bluestein_tables_d(p, chirp, work);
    else bluestein_tables_f(p, chirp, work);
    free(chirp);
    free(work);
    return p;
oom:
    plan_free(p);
    lm_set_error(LM_ERR_MEMORY, "fft: out of memory planning a transform of length %lld", (long long)n);
    return NULL;
}

/* the real plan of even length 2h: the complex plan of length h and the twiddles of length 2h */
static lm_fft_plan *plan_build_real(int64_t n, bool dbl) {
    int64_t h = n / 2;
    lm_fft_plan *p = plan_build(h, dbl);
    if (!p) return NULL;
    if (!(p->rtw = malloc(item(p) * 2 * (size_t)(h + 1)))) {
        plan_free(p);
        lm_set_error(LM_ERR_MEMORY, "fft: out of memory planning a transform of length %lld", (long long)n);
        return NULL;
    }
    for (int64_t k = 0; k <= h; k++) {
        double a = -2.0 * M_PI * (double)k / (double)n, re = cos(a), im = sin(a);
        if (dbl) { ((double *)p->rtw)[2 * k] = re; ((double *)p->rtw)[2 * k + 1] = im; }
        else { ((float *)p->rtw)[2 * k] = (float)re; ((float *)p->rtw)[2 * k + 1] = (float)im; }
    }
    return p;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static lm_fft_plan *cache[LM_FFT_CACHE];
static int next_slot;

static lm_fft_plan *plan_get(int64_t n, bool dbl, bool real) {
    int64_t len = real ? n / 2 : n;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < LM_FFT_CACHE; i++)
        if (cache[i] && cache[i]->n == len && cache[i]->dbl == dbl && !cache[i]->rtw == !real) {
            cache[i]->refs++;
            pthread_mutex_unlock(&lock);
            return cache[i];
        }
    pthread_mutex_unlock(&lock);
    lm_fft_plan *p = real ? plan_build_real(n, dbl) : plan_build(n, dbl);   /* outside the lock: a while */
    if (!p) return NULL;
    p->refs = 1;
    pthread_mutex_lock(&lock);
    for (int tries = 0; tries < LM_FFT_CACHE; tries++) {   /* a slot that is free, or whose plan is idle */
        int i = next_slot;
        next_slot = (next_slot + 1) % LM_FFT_CACHE;
        if (cache[i] && cache[i]->refs) continue;
        plan_free(cache[i]);
        cache[i] = p;
        p->cached = true;
        break;
    }
    pthread_mutex_unlock(&lock);
    return p;
}

lm_fft_plan *lm_fft_plan_get(int64_t n, bool dbl) { return plan_get(n, dbl, false); }

lm_fft_plan *lm_fft_plan_real(int64_t n, bool dbl) { return plan_get(n, dbl, true); }

void lm_fft_plan_put(lm_fft_plan *p) {
    if (!p) return;
    pthread_mutex_lock(&lock);
    bool drop = --p->refs == 0 && !p->cached;
    pthread_mutex_unlock(&lock);
    if (drop) plan_free(p);
}

int64_t lm_fft_scratch_len(const lm_fft_plan *p) { return p->sub ? 2 * p->m : p->n; }

int64_t lm_fft_lanes(bool dbl) { return dbl ? 64 / (int64_t)sizeof(double) : 64 / (int64_t)sizeof(float); }

bool lm_fft_batchable(const lm_fft_plan *p) { return !p->sub && p->n > 1 && p->n < LM_FFT_BATCH_MAX; }

bool lm_fft_run_direct(const lm_fft_plan *p, const void *in, void *out, void *scratch, bool forward, double scale,
                       bool par) {
    if (!p->r1) return false;
    return p->dbl ? four_to_d(p, in, out, scratch, par, !forward, scale) : four_to_f(p, in, out, scratch, par, !forward, (float)scale);
}

bool lm_fft_run_batch_r2c(const lm_fft_plan *p, int64_t nb, void *re, void *im, void *wr, void *wi) {
    return p->dbl ? batch_r2c_d(p, nb, re, im, wr, wi) : batch_r2c_f(p, nb, re, im, wr, wi);
}

bool lm_fft_run_batch_c2r(const lm_fft_plan *p, int64_t nb, void *re, void *im, void *wr, void *wi) {
    return p->dbl ? batch_c2r_d(p, nb, re, im, wr, wi) : batch_c2r_f(p, nb, re, im, wr, wi);
}

bool lm_fft_run_batch(const lm_fft_plan *p, int64_t nb, void *re, void *im, void *wr, void *wi) {
    return p->dbl ? batch_d(p, nb, re, im, wr, wi) : batch_f(p, nb, re, im, wr, wi);
}

void lm_fft_run(const lm_fft_plan *p, void *x, void *scratch, bool forward, bool par) {
    if (p->dbl) run_d(p, x, scratch, forward, par);
    else run_f(p, x, scratch, forward, par);
}

void lm_fft_run_r2c(const lm_fft_plan *p, void *buf, void *scratch, bool par) {
    if (p->dbl) r2c_d(p, buf, scratch, par);
    else r2c_f(p, buf, scratch, par);
}

void lm_fft_run_c2r(const lm_fft_plan *p, void *buf, void *scratch, bool par) {
    if (p->dbl) c2r_d(p, buf, scratch, par);
    else c2r_f(p, buf, scratch, par);
}
