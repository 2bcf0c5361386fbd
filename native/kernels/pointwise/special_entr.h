/* entr: -x log x (0 at 0, -inf below) (serves: floating), in T as PyTorch computes it, through T's
 * vectorised log (in double through libm's scalar log, float32 ran 0.63x PyTorch strided) */
#define LM_PW_special_entr(T, self) ((self) != (self) ? (T)(self) \
    : (self) > 0 ? (T)(-(self) * LM_MATH(log, (T)(self))) : (self) == 0 ? (T)0 : (T)-INFINITY)
