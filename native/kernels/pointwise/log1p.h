#define LM_PW_log1p(T, self) LM_MATH(log1p, self)
/* log(1 + z) without the cancellation near 0: |1 + z|^2 - 1 = x (2 + x) + y^2 */
#define LM_PW_log1p_complex(T, self)                                                                    \
    LM_CPLX(T, 0.5f * LM_MATH(log1p, LM_CREAL(self) * (2 + LM_CREAL(self)) + LM_CIMAG(self) * LM_CIMAG(self)), \
            LM_MATH2(atan2, double, LM_CIMAG(self), 1 + LM_CREAL(self)))
