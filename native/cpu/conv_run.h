/* The threaded driver behind conv2d and its two backward products. */
#ifndef LM_CONV_RUN_H
#define LM_CONV_RUN_H
#include "conv_cols.h"

typedef enum { LM_CONV_FORWARD, LM_CONV_BACKWARD_INPUT, LM_CONV_BACKWARD_WEIGHT } lm_conv_kind;

/* Over contiguous operands of dtype dt (float32 or float64):
 *   FORWARD          out (N, O, OH, OW) = conv2d(x = a, weight = b) + bias (or NULL, bias_stride in elements)
 *   BACKWARD_INPUT   out (N, C, H, W)   = d input, from grad = a and weight = b
 *   BACKWARD_WEIGHT  out (O, Cg, kh, kw) = d weight, from grad = a and input = b
 * out is written whole (no need to zero it). Returns 0, or -1 with the error set. */
int lm_conv_run(lm_conv_kind kind, const lm_conv_geom *G, int dt, const char *a, const char *b, const char *bias,
                int64_t bias_stride, char *out);

/* part(t, n, ctx) for t = 0..n-1 on nt OpenMP threads (n = 1 without OpenMP or for nt < 2), each
 * thread's GEMMs on itself; returns n, the threads that ran */
int lm_conv_threads(int nt, void (*part)(int t, int n, void *ctx), void *ctx);

#endif
