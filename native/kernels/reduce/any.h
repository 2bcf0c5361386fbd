#define LM_RED_any_IDENTITY(T) ((T)0)
#define LM_RED_any_COMBINE(T, a, b) ((a) || (b))
#define LM_RED_any_NONEMPTY false
