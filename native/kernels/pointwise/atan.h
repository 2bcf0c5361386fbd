/* atan: inverse tangent */
#define LM_PW_atan(T, self) LM_CMATH(atan, self)
