/* bitwise_or: integers bit by bit; for bool the same as logical_or (serves: integral_and_bool + barebones_unsigned) */
#define LM_PW_bitwise_or(T, self, other) lm_bitwise_or(T, self, other)
