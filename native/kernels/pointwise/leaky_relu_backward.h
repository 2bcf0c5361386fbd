/* leaky_relu_backward: grad_output where self > 0, else grad_output * negative_slope (leaky_relu's
 * gradient in one pass; where(self > 0, grad, grad * slope) was three kernels and as many nodes) */
#define LM_PW_leaky_relu_backward(T, grad_output, self, negative_slope) \
    ((self) > 0 ? (grad_output) : (grad_output) * (negative_slope))
