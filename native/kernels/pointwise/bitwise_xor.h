/* bitwise_xor: integers bit by bit; for bool the same as logical_xor (serves: integral_and_bool + barebones_unsigned) */
#define LM_PW_bitwise_xor(T, self, other) lm_bitwise_xor(T, self, other)
