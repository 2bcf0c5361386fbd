/* sgn: z / |z| for complex z (0 at 0), the sign for real ones */
#define LM_PW_sgn(T, self) ((self) != (self) ? (self) : (T)(((self) > 0) - ((self) < 0)))
#define LM_PW_sgn_complex(T, self) (LM_CABS(self) == 0 ? (T)0 : (self) / LM_CABS(self))
