/* add: self + alpha * other (alpha's kind must fit the compute dtype: the check) */
#define LM_PW_add(T, self, other, alpha) ((self) + (alpha) * (other))
#define LM_PW_add_CHECK(compute, self, other, alpha) lm_check_alpha(compute, alpha)
