#define LM_PW_eq(T, self, other) ((self) == (other))
