/* tan: tangent */
#define LM_PW_tan(T, self) LM_CMATH(tan, self)
