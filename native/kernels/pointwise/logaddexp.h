#pragma once
/* logaddexp: log(e^self + e^other) as max + log1p(e^-|self - other|); equal
 * infinities give themselves (inf - inf would be NaN). serves: floating */
#define LM_DEF_LOGADDEXP(T, NAME)                                                 \
    static inline LM_HD T NAME(T a, T b) {                                        \
        T m = a > b ? a : b;                                                      \
        return (a == b && isinf(a)) ? a : (a != a || b != b) ? a + b              \
            : m + (T)LM_MATH(log1p, LM_EXP(-LM_MATH(fabs, a - b)));               \
    }
LM_FLOAT_FN(lm_logaddexp_fn, LM_DEF_LOGADDEXP)
#define LM_PW_logaddexp(T, self, other) LM_FLOAT_TYPED(T, lm_logaddexp_fn)(self, other)
/* compute-bound in float and double: their loops take AVX-512's full width */
#define LM_PW_logaddexp_WIDE 1
