/* gelu_tanh: gelu's tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
#define LM_PW_gelu_tanh(T, self) \
    ((T)0.5 * (self) * ((T)1 + LM_MATH(tanh, (T)0.79788456080286535588 * ((self) + (T)0.044715 * (self) * (self) * (self)))))
