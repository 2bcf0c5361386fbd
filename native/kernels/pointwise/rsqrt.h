#define LM_PW_rsqrt(T, self) ((T)1 / LM_CMATH(sqrt, self))
