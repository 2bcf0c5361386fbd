#define LM_PW_log(T, self) LM_CMATH(log, self)
