/* & rather than &&: both sides are cheap and pure, and GCC vectorises the loop without the branch */
#define LM_PW_logical_and(T, self, other) (((self) != 0) & ((other) != 0))
