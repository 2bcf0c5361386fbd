/* Copies and casts, device-neutral: the device's runner moves the elements. */
#include "device.h"

int lm_copy_into(lm_tensor *dst, lm_tensor *src) {
    if (dst->device != src->device)
        return lm_set_error(LM_ERR_RUNTIME, "copying between devices is not supported yet (%s to %s)",
                            lm_device_name(src->device), lm_device_name(dst->device));
    const lm_device_runners *r = lm_runners(dst->device);
    if (!r || r->copy(dst, src)) return -1;
    lm_bump_version(dst);
    return 0;
}

lm_tensor *lm_cast(lm_tensor *t, int dtype) {
    if (t->dtype == dtype) { lm_retain(t); return t; }
    lm_tensor *out = lm_empty_like(t, dtype);
    if (out && lm_copy_into(out, t)) { lm_release(out); return NULL; }
    if (out) out->flags = t->flags;
    return out;
}

lm_tensor *lm_contiguous(lm_tensor *t) {
    if (lm_is_contiguous(t)) { lm_retain(t); return t; }
    lm_tensor *out = lm_empty_like(t, -1);
    if (out && lm_copy_into(out, t)) { lm_release(out); return NULL; }
    return out;
}
