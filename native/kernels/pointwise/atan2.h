/* atan2: the angle of the point (other, self), in (-pi, pi] */
#define LM_PW_atan2(T, self, other) LM_MATH2(atan2, T, self, other)
