/* signbit: true where the sign bit is set (so -0.0 and -NaN count, as PyTorch's). A float's own width:
 * through double, the float32 loop converted every element (0.68x NumPy on a Zen 3 host); an integer's
 * sign survives the conversion to float or double. */
#define LM_PW_signbit(T, self) \
    ((sizeof(T) > sizeof(float) ? signbit((double)(self)) : signbit((float)(self))) != 0)
