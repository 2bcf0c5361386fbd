/* erf: the error function */
#define LM_PW_erf(T, self) LM_ERF(self)
