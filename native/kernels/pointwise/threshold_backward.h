/* threshold_backward: grad_output where self > threshold, else 0 (relu's gradient in one pass) */
#define LM_PW_threshold_backward(T, grad_output, self, threshold) \
    ((self) > (threshold) ? (grad_output) : (T)0)
