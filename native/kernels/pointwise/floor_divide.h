/* floor_divide: Python's // (an integer divisor of zero is refused by the check) */
#define LM_PW_floor_divide(T, self, other) lm_floor_div(T, self, other)
#define LM_PW_floor_divide_CHECK(compute, self, other) lm_check_divisor(compute, self, other)
