/* nan_to_num: NaN, +inf and -inf replaced (by 0 and the largest and lowest finite values of the
 * dtype as stored unless given); integers pass through. The replacements are resolved once per loop
 * (nan_as_, posinf_as_, neginf_as_: the DEFAULT macros), so the loop selects against plain values. */
#define LM_PW_nan_to_num_DEFAULT_nan(T, S) 0
#define LM_PW_nan_to_num_DEFAULT_posinf(T, S) (LM_IS_FLOAT(T) ? LM_FINITE_MAX_OF(S, T) : 0)
#define LM_PW_nan_to_num_DEFAULT_neginf(T, S) (LM_IS_FLOAT(T) ? -LM_FINITE_MAX_OF(S, T) : 0)
#define LM_PW_nan_to_num(T, self, nan, posinf, neginf) (!LM_IS_FLOAT(T) ? (self)   \
    : (self) != (self) ? nan##_as_                                                 \
    : (self) > (T)LM_FINITE_MAX(T) ? posinf##_as_                                  \
    : (self) < -(T)LM_FINITE_MAX(T) ? neginf##_as_                                 \
    : (self))
