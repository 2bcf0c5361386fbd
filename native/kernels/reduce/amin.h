#define LM_RED_amin_IDENTITY(T) LM_HIGHEST(T)
#define LM_RED_amin_COMBINE(T, a, b) (((b) != (b) || (b) < (a)) ? (b) : (a))
#define LM_RED_amin_NONEMPTY true
