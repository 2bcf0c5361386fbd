/* Copies and casts, device-neutral: the device's runner moves the elements. */
#include "device.h"

int lm_copy_into(lm_tensor *dst, lm_tensor *src) {
    if (dst->device != src->device) {
        if (lm_copy_across(dst, src)) return -1;
        lm_bump_version(dst);
        return 0;
    }
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

lm_tensor *lm_move_to(lm_tensor *t, int device) {
    if (!t || device < 0 || t->device == device) return t;
    lm_tensor *r = lm_empty(t->ndim, t->shape, t->dtype, device);
    if (r && lm_copy_into(r, t)) { lm_release(r); r = NULL; }
    lm_release(t);
    return r;
}

lm_tensor *lm_to_host(lm_tensor *t) {
    lm_retain(t);
    return lm_move_to(t, LM_CPU);
}

int lm_device_mismatch(int a, int b) {
    return lm_set_error(LM_ERR_RUNTIME, "Expected all tensors to be on the same device, but found at least two "
                        "devices, %s and %s!", lm_device_name(a), lm_device_name(b));
}
