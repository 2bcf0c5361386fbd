/* sign: -1, 0 or 1; NaN stays NaN */
#define LM_PW_sign(T, self) ((self) != (self) ? (self) : (T)(((self) > 0) - ((self) < 0)))
