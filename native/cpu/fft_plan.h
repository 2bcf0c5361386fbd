/* One-dimensional complex FFTs of any length (fft_plan.c): mixed-radix Stockham
 * passes for lengths whose prime factors are at most 13, Bluestein's chirp-z
 * for the rest; a single transform from 256 points goes four-step (about sqrt(n) x
 * sqrt(n), each step in split batches). A plan holds a length's twiddles in float or double; plans are
 * cached (and shared between threads) per length and precision. */
#ifndef LOOM_FFT_PLAN_H
#define LOOM_FFT_PLAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lm_fft_plan lm_fft_plan;

/* The plan of length n (>= 1) in double or float; NULL with the error set (memory). */
lm_fft_plan *lm_fft_plan_get(int64_t n, bool dbl);
void lm_fft_plan_put(lm_fft_plan *p);

/* Elements (complex numbers) of scratch one transform needs. */
int64_t lm_fft_scratch_len(const lm_fft_plan *p);

/* x: n interleaved complex numbers in the plan's precision, transformed in place:
 * X_k = sum_j x_j e^(-+2 pi i jk/n) (forward: minus), unnormalized. With `par` (a caller
 * holding the GIL, on no worker thread), each pass splits over threads (lm_parallel_for). */
void lm_fft_run(const lm_fft_plan *p, void *x, void *scratch, bool forward, bool par);

/* A four-step plan's transform from in to out (contiguous complex; out may be in), the result times
 * scale, with scratch of lm_fft_scratch_len: no copies on the way. False (nothing done) for other plans
 * or without memory. */
bool lm_fft_run_direct(const lm_fft_plan *p, const void *in, void *out, void *scratch, bool forward, double scale,
                       bool par);

/* Split batches: nb <= lm_fft_lanes(dbl) transforms at once, element k of transform b at re[k nb + b] and
 * im[k nb + b] (vectorised across the transforms). For plans of lm_fft_batchable (not Bluestein's,
 * 1 < n < 2^14: 16 rows' buffers stay within the L2 cache; longer rows go four-step one by one).
 * Forward and unnormalized; (wr, wi) are buffers of the same size; returns true when the result lies
 * in them instead of (re, im). */
int64_t lm_fft_lanes(bool dbl);
bool lm_fft_batchable(const lm_fft_plan *p);
bool lm_fft_run_batch(const lm_fft_plan *p, int64_t nb, void *re, void *im, void *wr, void *wi);

/* The same for a real plan (lm_fft_plan_real of 2h, batchable): rows of 2h reals paired as z_j =
 * x_2j + i x_2j+1 in (re, im), h + 1 complex X_0..X_h out (the buffers hold at least h + 1 per row). */
bool lm_fft_run_batch_r2c(const lm_fft_plan *p, int64_t nb, void *re, void *im, void *wr, void *wi);
/* And its inverse: X_0..X_h of each row in (re, im) -> conj(z), z the unnormalized inverse's h complex
 * whose parts are the even and odd samples (the buffers hold at least h + 1 per row). */
bool lm_fft_run_batch_c2r(const lm_fft_plan *p, int64_t nb, void *re, void *im, void *wr, void *wi);

/* Real transforms of even length n through a complex one of length n / 2: the plan of
 * lm_fft_plan_real(n, dbl), whose scratch is lm_fft_scratch_len's. r2c: buf holds n reals and
 * receives X_0..X_(n/2) (n/2 + 1 complex); c2r: the reverse (unnormalized, X_0's and X_(n/2)'s
 * imaginary parts ignored). */
lm_fft_plan *lm_fft_plan_real(int64_t n, bool dbl);
void lm_fft_run_r2c(const lm_fft_plan *p, void *buf, void *scratch, bool par);
void lm_fft_run_c2r(const lm_fft_plan *p, void *buf, void *scratch, bool par);

#endif
