/* clamp: bound self to [min, max]; either bound may be None (kind < 0). A NaN bound gives NaN, as PyTorch. */
#define LM_PW_clamp(T, self, min, max) ({                                                              \
    T v_ = (self), lo_ = LM_SCALAR_AS(T, min), hi_ = LM_SCALAR_AS(T, max);                            \
    v_ = ((min).kind >= 0 && (v_ < lo_ || lo_ != lo_)) ? lo_ : v_;                                    \
    ((max).kind >= 0 && (v_ > hi_ || hi_ != hi_)) ? hi_ : v_; })
