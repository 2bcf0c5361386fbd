/* conj_physical: the complex conjugate (a real number is its own) */
#define LM_PW_conj_physical(T, self) (self)
#define LM_PW_conj_physical_complex(T, self) LM_CONJ(self)
