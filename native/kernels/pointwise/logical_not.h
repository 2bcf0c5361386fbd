#define LM_PW_logical_not(T, self) ((self) == 0)
