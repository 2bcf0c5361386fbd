/* clamp: bound self to [min, max]; either bound may be None (kind < 0). A NaN bound gives NaN, as PyTorch. */
#pragma once
/* An absent bound is the dtype's extreme, and each select tests one condition: GCC does not
 * vectorise a select on two conditions' masks combined (float32's loop stayed scalar). */
#define LM_DEF_CLAMP(T, NAME)                                                                \
    static inline LM_HD T NAME(T v, lm_scalar min, lm_scalar max) {                          \
        T lo = min.kind >= 0 ? LM_SCALAR_AS(T, min) : (T)LM_LOWEST(T);                       \
        T hi = max.kind >= 0 ? LM_SCALAR_AS(T, max) : (T)LM_HIGHEST(T);                      \
        v = v < lo ? lo : v;                                                                 \
        v = lo != lo ? lo : v;                                                               \
        v = v > hi ? hi : v;                                                                 \
        return hi != hi ? hi : v;                                                            \
    }
LM_TYPED_FN(lm_clamp_fn, LM_DEF_CLAMP)
#define LM_PW_clamp(T, self, min, max) LM_TYPED(T, lm_clamp_fn)(self, min, max)
#define LM_PW_clamp_CHECK(compute, self, min, max) \
    ((min).kind < 0 && (max).kind < 0 ? lm_set_error(LM_ERR_RUNTIME, "At least one of 'min' or 'max' must not be None") : 0)
