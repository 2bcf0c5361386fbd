/* logaddexp: log(e^self + e^other) as max + log1p(e^-|self - other|); equal
 * infinities give themselves (inf - inf would be NaN). serves: floating */
#define LM_PW_logaddexp(T, self, other) ({                                         \
    T a_ = (self), b_ = (other), m_ = a_ > b_ ? a_ : b_;                           \
    (a_ == b_ && isinf(a_)) ? a_ : (a_ != a_ || b_ != b_) ? a_ + b_                \
        : m_ + (T)LM_MATH(log1p, LM_EXP(-LM_MATH(fabs, a_ - b_))); })
