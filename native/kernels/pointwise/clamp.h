/* clamp: bound self to [min, max]; either bound may be None (kind < 0). A NaN bound gives NaN, as PyTorch. */
#define LM_PW_clamp(T, self, min, max) \
    lm_clamp(T, self, (min).kind >= 0, LM_SCALAR_AS(T, min), (max).kind >= 0, LM_SCALAR_AS(T, max))
