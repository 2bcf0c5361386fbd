/* lcm: least common multiple of the magnitudes, 0 when either is 0; |a / gcd * b| wrapping to T
 * as PyTorch's */
#pragma once
#include "gcd.h"
static inline LM_HD uint64_t lm_lcm_u64(int64_t a, int64_t b) {
    uint64_t g = lm_gcd_u64(a, b);
    uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
    return g == 0 ? 0 : x / g * y;
}
#define LM_PW_lcm(T, self, other) ((T)lm_lcm_u64((int64_t)(self), (int64_t)(other)))
