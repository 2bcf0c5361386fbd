/* hypot: sqrt(self^2 + other^2) without overflow in the squares. serves: floating */
#define LM_PW_hypot(T, self, other) _Generic((T)0, float: hypotf((float)(self), (float)(other)), \
    default: hypot((double)(self), (double)(other)))
