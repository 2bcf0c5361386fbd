/* nan_to_num: NaN, +inf and -inf replaced (by 0 and the largest and lowest finite values
 * unless given); integers pass through */
#define LM_PW_nan_to_num(T, self, nan, posinf, neginf) (!LM_IS_FLOAT(T) ? (self)                         \
    : (self) != (self) ? ((nan).kind >= 0 ? LM_SCALAR_AS(T, nan) : (T)0)                                 \
    : (self) > (T)LM_FINITE_MAX(T) ? ((posinf).kind >= 0 ? LM_SCALAR_AS(T, posinf) : (T)LM_FINITE_MAX(T)) \
    : (self) < -(T)LM_FINITE_MAX(T) ? ((neginf).kind >= 0 ? LM_SCALAR_AS(T, neginf) : -(T)LM_FINITE_MAX(T)) \
    : (self))
