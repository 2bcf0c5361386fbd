/* remainder: Python modulo, the sign of the divisor (an integer divisor of zero is refused by the check) */
#define LM_PW_remainder(T, self, other) lm_remainder(T, self, other)
#define LM_PW_remainder_CHECK(compute, self, other) lm_check_divisor(compute, self, other)
