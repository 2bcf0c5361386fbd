/* leaky_relu: x for x > 0, else negative_slope * x */
#define LM_PW_leaky_relu(T, self, negative_slope) ((self) > 0 ? (self) : (self) * (negative_slope))
