#define LM_PW_le(T, self, other) ((self) <= (other))
