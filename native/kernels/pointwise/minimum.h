/* minimum: elementwise min, NaN-propagating */
#define LM_PW_minimum(T, self, other) (((self) != (self) || (self) < (other)) ? (self) : (other))
