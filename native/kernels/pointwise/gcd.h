/* gcd: greatest common divisor of the magnitudes (gcd(0, 0) = 0), by Euclid on unsigned 64-bit
 * magnitudes so that the most negative value has one too; the result wraps to T as PyTorch's. */
#pragma once
static inline LM_HD uint64_t lm_gcd_u64(int64_t a, int64_t b) {
    uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return x;
}
#define LM_PW_gcd(T, self, other) ((T)lm_gcd_u64((int64_t)(self), (int64_t)(other)))
