/* bitwise_not: ~x for integers, logical not for bool (serves: integral_and_bool) */
#define LM_PW_bitwise_not(T, self) lm_bitwise_not(T, self)
