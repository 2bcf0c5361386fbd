/* floor_divide: Python's // (an integer divisor of zero is refused by the check) */
#define LM_PW_floor_divide(T, self, other) lm_floor_div(T, self, other)
#define LM_PW_floor_divide_CHECK(compute, self, other) lm_check_divisor(compute, self, other)
/* C loops (float, double, both through double): blocks whose every |self / other| < 2^52 take fmod as
 * self - n other, exact (vmath_fmod.h) */
#define LM_PW_floor_divide_SHORT(T, self, other) lm_floor_div_short(T, self, other)
#define LM_PW_floor_divide_SHORT_OK(T, self, other) lm_floor_div_short_ok(T, self, other)
