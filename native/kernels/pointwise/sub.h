/* sub: self - alpha * other */
#define LM_PW_sub(T, self, other, alpha) ((self) - (alpha) * (other))
