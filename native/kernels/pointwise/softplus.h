/* softplus: log(1 + e^(beta x)) / beta, and x itself where beta x > threshold (as PyTorch) */
#define LM_PW_softplus(T, self, beta, threshold) ({                                             \
    T b_ = (beta), z_ = (self) * b_;                                               \
    z_ > (threshold) ? (self) : LM_MATH(log1p, LM_EXP(z_)) / b_; })
