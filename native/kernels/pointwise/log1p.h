#define LM_PW_log1p(T, self) LM_MATH(log1p, self)
