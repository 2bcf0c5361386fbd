/* nextafter: the next representable value after self in the direction of other (C99's nextafter;
 * other itself when they are equal). float32 and float64 only: a 16-bit dtype's step is not float32's */
#define LM_PW_nextafter(T, self, other) LM_MATH2(nextafter, T, self, other)
