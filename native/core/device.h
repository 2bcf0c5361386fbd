/* The device seam. A driver (pointwise, reduce, copy) first plans what an op
 * does without touching data: result dtype, broadcast shape, out= checks. That
 * plan is device-neutral (and is all a shape-only "meta" run needs). It then
 * hands the plan to the runner registered for the tensors' device, which owns
 * the loops, the threads and the memory of that device. */
#ifndef LOOM_DEVICE_H
#define LOOM_DEVICE_H
#include "ops_support.h"

/* what lm_pointwise decided before any element is touched */
typedef struct {
    int compute, outdt, device, ndim;
    int64_t shape[LM_MAX_DIMS];   /* the broadcast (or out=) shape */
    int64_t strides[LM_MAX_DIMS];   /* a new result's: dense, in the order of the inputs' strides */
} lm_pointwise_plan;

/* what lm_reduce decided: the accumulating dtype (runners' result), the op's result dtype
 * (acc but for float16/bfloat16, which accumulate in float32), the reduced dims, the shape */
typedef struct {
    int acc, result, device, ndim;
    bool red[LM_MAX_DIMS];
    int64_t shape[LM_MAX_DIMS], count;
} lm_reduce_plan;

typedef struct {
    const char *name;
    /* a new tensor (out == NULL) or `out` written, as the plan says; a new reference, NULL on error */
    lm_tensor *(*pointwise)(const lm_pointwise_spec *spec, const lm_pointwise_plan *plan, lm_tensor **ins,
                            lm_tensor *out, const void *ctx);
    /* the reduction of self as the plan says, a new tensor of plan->acc; NULL on error */
    lm_tensor *(*reduce)(const lm_reduce_spec *spec, const lm_reduce_plan *plan, lm_tensor *self);
    /* dst <- src, same device, broadcast and cast: 0 or -1 */
    int (*copy)(lm_tensor *dst, lm_tensor *src);
} lm_device_runners;

/* the runners of `device`, or NULL with "no loom kernels for device ..." set */
const lm_device_runners *lm_runners(int device);
/* a device backend (the CUDA library, when loaded) registers its runners once */
int lm_register_runners(int device, const lm_device_runners *r);

/* the CPU's runners (native/cpu/run_*.c), built in */
extern const lm_device_runners lm_cpu_runners;
lm_tensor *lm_run_cpu_pointwise(const lm_pointwise_spec *spec, const lm_pointwise_plan *plan, lm_tensor **ins,
                                lm_tensor *out, const void *ctx);
lm_tensor *lm_run_cpu_reduce(const lm_reduce_spec *spec, const lm_reduce_plan *plan, lm_tensor *self);
int lm_run_cpu_copy(lm_tensor *dst, lm_tensor *src);

/* What every device's pointwise runner does alike: input k in the compute dtype (through a copy
 * when it partially overlaps out), a new reference or NULL; and the result handed over (target, a
 * new reference, converted into out when out is of another dtype; out's version bumped) */
lm_tensor *lm_pointwise_input(lm_tensor *in, int compute, const lm_tensor *out);
lm_tensor *lm_pointwise_result(lm_tensor *out, lm_tensor *target);

int lm_pointwise_plan_make(const lm_pointwise_spec *spec, lm_tensor **ins, lm_tensor *out, const void *ctx,
                           lm_pointwise_plan *plan);
int lm_reduce_plan_make(const lm_reduce_spec *spec, lm_tensor *self, const int64_t *dims, int64_t ndims,
                        bool keepdim, int dtype, lm_reduce_plan *plan);

#endif
