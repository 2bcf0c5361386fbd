/* where: pick self where condition holds, else other */
#define LM_PW_where(T, condition, self, other) ((condition) ? (self) : (other))
/* a Python number for self or other must fit the result dtype (PyTorch refuses where(c, uint8, 300)) */
#define LM_PW_where_CHECK(compute, condition, self, other) \
    (lm_check_wrapped_fits(compute, self) || lm_check_wrapped_fits(compute, other))
