#define LM_PW_logical_xor(T, self, other) (((self) != 0) != ((other) != 0))
