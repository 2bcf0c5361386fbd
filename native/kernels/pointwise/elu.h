/* elu: x for x > 0, else alpha * (e^x - 1) */
#define LM_PW_elu(T, self, alpha) ((self) > 0 ? (self) : (alpha) * LM_MATH(expm1, self))
