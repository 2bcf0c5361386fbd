/* abs: adding 0 turns -0.0 into +0.0 */
#define LM_PW_abs(T, self) ((self) < 0 ? -(self) : (self) + 0)
/* |z| of a complex z: its real counterpart (the op says `result: real`) */
#define LM_PW_abs_complex(T, self) LM_CABS(self)
