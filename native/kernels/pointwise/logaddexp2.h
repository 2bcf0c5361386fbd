/* logaddexp2: log2(2^self + 2^other) as max + log2(1 + 2^-|self - other|). serves: floating */
#define LM_PW_logaddexp2(T, self, other) ({                                        \
    T a_ = (self), b_ = (other), m_ = a_ > b_ ? a_ : b_;                           \
    (a_ == b_ && isinf(a_)) ? a_ : (a_ != a_ || b_ != b_) ? a_ + b_                \
        : m_ + (T)(LM_MATH(log1p, LM_MATH(exp2, -LM_MATH(fabs, a_ - b_))) * (T)1.4426950408889634); })
