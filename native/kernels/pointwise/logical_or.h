#define LM_PW_logical_or(T, self, other) ((self) != 0 || (other) != 0)
