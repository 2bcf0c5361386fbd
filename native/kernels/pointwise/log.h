#define LM_PW_log(T, self) LM_MATH(log, self)
