#define LM_PW_gt(T, self, other) ((self) > (other))
