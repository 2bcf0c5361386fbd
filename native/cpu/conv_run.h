/* The threaded driver behind conv2d and its two backward products. */
#ifndef LM_CONV_RUN_H
#define LM_CONV_RUN_H
#include "conv.h"
#include "conv_cols.h"

/* Over contiguous operands of dtype dt (float32 or float64):
 *   FORWARD          out (N, O, OH, OW) = conv2d(x = a, weight = b) + bias (or NULL, bias_stride in elements)
 *   BACKWARD_INPUT   out (N, C, H, W)   = d input, from grad = a and weight = b
 *   BACKWARD_WEIGHT  out (O, Cg, kh, kw) = d weight, from grad = a and input = b
 * out is written whole (no need to zero it). Returns 0, or -1 with the error set. */
int lm_conv_run(lm_conv_kind kind, const lm_conv_geom *G, int dt, const char *a, const char *b, const char *bias,
                int64_t bias_stride, char *out);

#endif
