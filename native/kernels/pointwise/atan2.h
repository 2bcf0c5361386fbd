/* atan2: the angle of the point (other, self), in (-pi, pi] */
#define LM_PW_atan2(T, self, other) _Generic((T)0, float: atan2f((float)(self), (float)(other)), \
    default: atan2((double)(self), (double)(other)))
