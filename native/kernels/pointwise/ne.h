#define LM_PW_ne(T, self, other) ((self) != (other))
