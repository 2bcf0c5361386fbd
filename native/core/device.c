/* The runners of each device: the CPU's are built in; another backend
 * registers its own when its library loads. */
#include "device.h"

static const lm_device_runners *runners[LM_NUM_DEVICES] = {[LM_CPU] = &lm_cpu_runners};

const lm_device_runners *lm_runners(int device) {
    if (device < 0 || device >= LM_NUM_DEVICES) {
        lm_set_error(LM_ERR_RUNTIME, "invalid device code %d", device);
        return NULL;
    }
    if (!runners[device])   /* as PyTorch's "Torch not compiled with CUDA enabled" */
        lm_set_error(LM_ERR_RUNTIME, "device %s is not available: loom was not compiled with %s enabled",
                     device == LM_CUDA ? "cuda" : lm_device_name(device), device == LM_CUDA ? "CUDA" : "it");
    return runners[device];
}

int lm_register_runners(int device, const lm_device_runners *r) {
    if (device <= LM_CPU || device >= LM_NUM_DEVICES || !r)
        return lm_set_error(LM_ERR_VALUE, "cannot register runners for device code %d", device);
    runners[device] = r;
    return 0;
}
