/* relu: max(x, 0), NaN-propagating */
#define LM_PW_relu(T, self) (((self) > 0 || (self) != (self)) ? (self) : (T)0)
