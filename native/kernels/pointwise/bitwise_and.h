/* bitwise_and: integers bit by bit; for bool the same as logical_and (serves: integral_and_bool + barebones_unsigned) */
#define LM_PW_bitwise_and(T, self, other) lm_bitwise_and(T, self, other)
