#pragma once
/* logaddexp2: log2(2^self + 2^other) as max + log2(1 + 2^-|self - other|); equal arguments give
 * a + 1 exactly (log1p(1) * log2(e) rounds below 1). serves: floating */
#define LM_DEF_LOGADDEXP2(T, NAME)                                                \
    static inline LM_HD T NAME(T a, T b) {                                        \
        T m = a > b ? a : b;                                                      \
        return a == b ? a + (T)1 : (a != a || b != b) ? a + b                     \
            : m + (T)(LM_MATH(log1p, LM_MATH(exp2, -LM_MATH(fabs, a - b))) * (T)1.4426950408889634); \
    }
LM_FLOAT_FN(lm_logaddexp2_fn, LM_DEF_LOGADDEXP2)
#define LM_PW_logaddexp2(T, self, other) LM_FLOAT_TYPED(T, lm_logaddexp2_fn)(self, other)
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_logaddexp2_WIDE 1
