/* maximum: elementwise max, NaN-propagating */
#define LM_PW_maximum(T, self, other) (((self) != (self) || (self) > (other)) ? (self) : (other))
