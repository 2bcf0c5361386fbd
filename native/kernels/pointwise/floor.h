#define LM_PW_floor(T, self) (LM_IS_FLOAT(T) ? (T)LM_MATH(floor, self) : (self))
