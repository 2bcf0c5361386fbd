#define LM_PW_lt(T, self, other) ((self) < (other))
