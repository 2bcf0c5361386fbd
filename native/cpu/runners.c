/* The CPU's entries in the device seam (native/core/device.h). */
#include "device.h"

const lm_device_runners lm_cpu_runners = {"cpu", lm_run_cpu_pointwise, lm_run_cpu_reduce, lm_run_cpu_copy};
