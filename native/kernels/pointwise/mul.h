/* mul: self * other (logical and for bool). A uint16 promotes to int, where 65535 * 65535
 * overflows (undefined behaviour): the leading 1u makes narrow integers multiply as unsigned
 * int, which wraps as PyTorch's product does; wider and floating operands absorb it unchanged */
#define LM_PW_mul(T, self, other) ((T)(1u * (self) * (other)))
#define LM_PW_mul_complex(T, self, other) LM_CMUL(T, self, other)
