/* sub: self - alpha * other (no bool operand, and alpha's kind must fit the compute dtype: the check) */
#define LM_PW_sub(T, self, other, alpha) ((self) - (alpha) * (other))
#define LM_PW_sub_CHECK(compute, self, other, alpha) (lm_check_sub_bool(self, other) || lm_check_alpha(compute, alpha))
