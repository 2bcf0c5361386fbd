/* angle: the argument of a complex number; of a real one 0, or pi where negative (NaN stays NaN) */
#define LM_PW_angle(T, self) ((self) != (self) ? (self) : (self) < 0 ? (T)3.14159265358979323846 : (T)0)
#define LM_PW_angle_complex(T, self) LM_CARG(self)
