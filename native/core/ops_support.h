/* What generated op code links against: the pointwise and reduction
 * drivers. A generated op supplies only a spec (its loops per dtype and its
 * type rule); everything shared lives behind these two calls. */
#ifndef LOOM_OPS_SUPPORT_H
#define LOOM_OPS_SUPPORT_H
#include "iter.h"

/* How a pointwise op picks its compute dtype and its output dtype. */
typedef enum {
    LM_PROMOTE_DEFAULT,   /* compute and output in the promoted type */
    LM_PROMOTE_FLOAT,     /* integral/bool promote to the default float */
    LM_PROMOTE_BOOL_OUT,  /* compute in the promoted type, output bool */
    LM_PROMOTE_SCALARS,   /* as DEFAULT, with the op's Scalar arguments as weak numbers (clamp) */
    LM_PROMOTE_VALUES,    /* as DEFAULT over the inputs but the first, a condition (where, as PyTorch's) */
} lm_promote_rule;

typedef struct {
    const char *name;
    int ninputs;
    lm_promote_rule promote;
    /* [device][compute dtype]: the generated loops of each device (a device's runner knows
     * the signature behind its row; CPU: lm_loop_fn); NULL = unsupported there */
    lm_loop_fn loops[LM_NUM_DEVICES][LM_NUM_DTYPES];
    int nscalars;                      /* the ctx's lm_scalar fields: each must fit the compute dtype, */
    size_t scalar_offsets[4];          /* and with LM_PROMOTE_SCALARS they take part in promotion */
    /* the kernel header's LM_PW_NAME_CHECK, run on the inputs and the compute dtype
     * before anything is written (divisors, exponents, alpha), and before the
     * compute dtype is looked up in loops; NULL when it has none */
    int (*check)(lm_tensor **ins, int compute, const void *ctx);
    const char *key;      /* the op's C name: what another device's kernel table is keyed by */
    size_t ctx_size;      /* bytes of the ctx struct (a device copies it to its kernels) */
    bool real_out;        /* the result is the compute dtype's real counterpart (abs, angle of complex) */
} lm_pointwise_spec;

/* out == NULL: allocate. Otherwise write into out (in-place when out is an
 * input). Returns a new reference to the result, NULL on error. */
lm_tensor *lm_pointwise(const lm_pointwise_spec *spec, lm_tensor **ins, lm_tensor *out, const void *ctx);

typedef enum {
    LM_REDUCE_SUM,       /* bool/integral accumulate in int64 */
    LM_REDUCE_KEEP,      /* result dtype = input dtype */
    LM_REDUCE_BOOL,      /* result bool */
    LM_REDUCE_FLOAT,     /* input must be floating (or dtype= given) */
} lm_reduce_rule;

typedef void (*lm_fill_fn)(char *p, int64_t n);

/* ctx of a rows loop: `rows` input rows, `stride` bytes apart, fold into op 0 */
typedef struct { int64_t rows, stride; } lm_rows;

typedef struct {
    const char *name;
    lm_reduce_rule rule;
    bool mean;                         /* divide by the reduced count */
    bool needs_nonempty;               /* no identity: empty reductions are an error */
    lm_loop_fn loops[LM_NUM_DEVICES][LM_NUM_DTYPES];   /* op 0: accumulator (stride 0 = reduce into one) */
    lm_fill_fn identity[LM_NUM_DTYPES];   /* the CPU runner's: fill with the identity */
    lm_loop_fn rows[LM_NUM_DTYPES];       /* the CPU runner's: contiguous rows into a contiguous accumulator */
    const char *key;                      /* the op's C name: what another device's kernel table is keyed by */
} lm_reduce_spec;

/* dims == NULL or ndims < 0: reduce over all dims. dtype < 0: by rule. */
lm_tensor *lm_reduce(const lm_reduce_spec *spec, lm_tensor *self, const int64_t *dims, int64_t ndims,
                     bool keepdim, int dtype, lm_tensor *out);

/* Checks the kernel headers' LM_PW_NAME_CHECK macros call (native/core/checks.c).
 * Each returns 0, or -1 with the error set. */
int lm_check_divisor(int compute, lm_tensor *dividend, lm_tensor *divisor);   /* integer division by zero */
int lm_check_int_pow(lm_tensor *self, lm_tensor *exponent);   /* integer tensor ** negative Python int */
int lm_check_alpha(int compute, lm_scalar alpha);              /* add/sub: alpha's kind fits the dtype */
int lm_check_sub_bool(lm_tensor *self, lm_tensor *other);      /* sub: no bool operand */
int lm_check_wrapped_fits(int dtype, lm_tensor *t);            /* a Python number operand fits dtype */


/* kind 4 (2^63 and up) converts from its bits as uint64: exact in uint64, wrapped in narrower integers */
#ifdef __cplusplus
#define LM_SCALAR_AS(T, s) ((s).kind == 4 ? (T)(uint64_t)(s).i : (s).kind >= 2 ? (T)(s).d : (T)(s).i)
#else   /* a complex Scalar (kind 3) is d + im*i; a real T takes its real part */
#define LM_SCALAR_AS(T, s) ((s).kind == 4 ? (T)(uint64_t)(s).i : (s).kind == 3 ? (T)LM_CMPLX((s).d, (s).im) \
                            : (s).kind == 2 ? (T)(s).d : (T)(s).i)
#endif

#endif
