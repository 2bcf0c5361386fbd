#define LM_PW_ge(T, self, other) ((self) >= (other))
