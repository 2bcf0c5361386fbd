/* clamp: bound self to [min, max]; either bound may be None (kind < 0) */
#define LM_PW_clamp(T, self, min, max) ({                                                  \
    T v_ = (self);                                                                        \
    v_ = ((min).kind >= 0 && v_ < LM_SCALAR_AS(T, min)) ? LM_SCALAR_AS(T, min) : v_;      \
    ((max).kind >= 0 && v_ > LM_SCALAR_AS(T, max)) ? LM_SCALAR_AS(T, max) : v_; })
