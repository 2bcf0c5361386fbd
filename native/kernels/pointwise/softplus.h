#pragma once
/* softplus: log(1 + e^(beta x)) / beta, and x itself where beta x > threshold (as PyTorch) */
#define LM_DEF_SOFTPLUS(T, NAME)                                                   \
    static inline LM_HD T NAME(T x, T beta, T threshold) {                        \
        T z = x * beta;                                                           \
        return z > threshold ? x : LM_MATH(log1p, LM_EXP(z)) / beta;              \
    }
LM_FLOAT_FN(lm_softplus_fn, LM_DEF_SOFTPLUS)
#define LM_PW_softplus(T, self, beta, threshold) LM_FLOAT_TYPED(T, lm_softplus_fn)(self, beta, threshold)
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_softplus_WIDE 1
