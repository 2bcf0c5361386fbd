/* copysign: |self| with the sign bit of other (ints are promoted to float first) */
#define LM_PW_copysign(T, self, other) LM_MATH2(copysign, T, self, other)
