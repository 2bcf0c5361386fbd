/* What the conv2d drivers share: which of the three products a call computes. */
#ifndef LM_CONV_H
#define LM_CONV_H

typedef enum { LM_CONV_FORWARD, LM_CONV_BACKWARD_INPUT, LM_CONV_BACKWARD_WEIGHT } lm_conv_kind;

#endif
