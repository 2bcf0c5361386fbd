/* hypot: sqrt(self^2 + other^2) without overflow in the squares. serves: floating */
#define LM_PW_hypot(T, self, other) LM_MATH2(hypot, T, self, other)
