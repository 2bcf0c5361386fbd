#define LM_PW_expm1(T, self) LM_MATH(expm1, self)
/* e^z - 1 without the cancellation near 0: the real part is expm1(x) cos y - 2 sin^2(y / 2), one fma
 * (every loop rounds it alike) */
#define LM_PW_expm1_complex(T, self)                                                                    \
    LM_CPLX(T, LM_FMA(LM_MATH(expm1, LM_CREAL(self)), LM_MATH(cos, LM_CIMAG(self)),                      \
                      -2 * LM_MATH(sin, LM_CIMAG(self) / 2) * LM_MATH(sin, LM_CIMAG(self) / 2)),          \
            LM_MATH(exp, LM_CREAL(self)) * LM_MATH(sin, LM_CIMAG(self)))
