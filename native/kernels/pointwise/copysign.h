/* copysign: |self| with the sign bit of other (ints are promoted to float first) */
#define LM_PW_copysign(T, self, other) _Generic((T)0, float: copysignf((float)(self), (float)(other)), \
    default: copysign((double)(self), (double)(other)))
