/* reciprocal: 1 / x (ints are promoted to float first) */
#define LM_PW_reciprocal(T, self) ((T)1 / (self))
