/* div: true division, computed in floating point */
#define LM_PW_div(T, self, other) ((self) / (other))
