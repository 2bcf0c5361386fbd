#define LM_PW_logical_and(T, self, other) ((self) != 0 && (other) != 0)
