/* gelu_tanh: gelu's tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); -0 below -40
 * (where 1 + tanh(.) is 0), so that -inf gives its limit -0 rather than -inf * 0 = NaN */
#define LM_PW_gelu_tanh(T, self) \
    ((self) < (T)-40 ? (T)-0.0 : \
     (T)0.5 * (self) * ((T)1 + LM_TANH((T)0.79788456080286535588 * ((self) + (T)0.044715 * (self) * (self) * (self)))))
