/* add: self + alpha * other */
#define LM_PW_add(T, self, other, alpha) ((self) + (alpha) * (other))
