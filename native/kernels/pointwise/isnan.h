#define LM_PW_isnan(T, self) ((self) != (self))
