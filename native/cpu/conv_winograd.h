/* Winograd F(2x2, 3x3): conv2d and its two backward products for 3x3 kernels
 * at stride 1, undilated, in float32. */
#ifndef LM_CONV_WINOGRAD_H
#define LM_CONV_WINOGRAD_H
#include "conv.h"
#include "conv_cols.h"

/* Does lm_winograd_run take this call (and is it worth it)? */
bool lm_winograd_applies(lm_conv_kind kind, const lm_conv_geom *G, int dt);

/* lm_conv_run's contract, for calls lm_winograd_applies accepted */
int lm_winograd_run(lm_conv_kind kind, const lm_conv_geom *G, const float *a, const float *b, const float *bias,
                    int64_t bias_stride, float *out);

#endif
