/* clamp: bound self to [min, max]; either bound may be None (kind < 0). A NaN bound gives NaN, as PyTorch. */
#pragma once
/* An absent bound is the dtype's extreme, resolved once per loop (min_as_, max_as_: the DEFAULT
 * macros below), and each select tests one condition: GCC does not vectorise a select on two
 * conditions' masks combined, nor a loop that tests the bounds' kinds per element. */
#define LM_DEF_CLAMP(T, NAME)                                                                \
    static inline LM_HD T NAME(T v, T lo, T hi) {                                            \
        v = v < lo ? lo : v;                                                                 \
        v = lo != lo ? lo : v;                                                               \
        v = v > hi ? hi : v;                                                                 \
        return hi != hi ? hi : v;                                                            \
    }
LM_TYPED_FN(lm_clamp_fn, LM_DEF_CLAMP)
#define LM_PW_clamp_DEFAULT_min(T, S) LM_LOWEST(T)
#define LM_PW_clamp_DEFAULT_max(T, S) LM_HIGHEST(T)
#define LM_PW_clamp(T, self, min, max) LM_TYPED(T, lm_clamp_fn)(self, min##_as_, max##_as_)
#define LM_PW_clamp_CHECK(compute, self, min, max) \
    ((min).kind < 0 && (max).kind < 0 ? lm_set_error(LM_ERR_RUNTIME, "At least one of 'min' or 'max' must not be None") : 0)
