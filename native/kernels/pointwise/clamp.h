/* clamp: bound self to [min, max]; either bound may be None (kind < 0). A NaN bound gives NaN, as PyTorch. */
#pragma once
#define LM_DEF_CLAMP(T, NAME)                                                                \
    static inline LM_HD T NAME(T v, lm_scalar min, lm_scalar max) {                          \
        T lo = LM_SCALAR_AS(T, min), hi = LM_SCALAR_AS(T, max);                              \
        v = (min.kind >= 0 && (v < lo || lo != lo)) ? lo : v;                                \
        return (max.kind >= 0 && (v > hi || hi != hi)) ? hi : v;                            \
    }
LM_TYPED_FN(lm_clamp_fn, LM_DEF_CLAMP)
#define LM_PW_clamp(T, self, min, max) LM_TYPED(T, lm_clamp_fn)(self, min, max)
#define LM_PW_clamp_CHECK(compute, self, min, max) \
    ((min).kind < 0 && (max).kind < 0 ? lm_set_error(LM_ERR_RUNTIME, "At least one of 'min' or 'max' must not be None") : 0)
