/* bitwise_xor: integers bit by bit; for bool the same as logical_xor (serves: integral_and_bool) */
#define LM_PW_bitwise_xor(T, self, other) _Generic((T)0, bool: (bool)((self) ^ (other)), float: 0, double: 0, default: (T)((self) ^ (other)))
