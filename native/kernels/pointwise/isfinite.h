/* isfinite: x - x is 0 exactly when x is finite (always for integers) */
#define LM_PW_isfinite(T, self) ((self) - (self) == 0)
