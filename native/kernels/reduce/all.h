#define LM_RED_all_IDENTITY(T) ((T)1)
#define LM_RED_all_COMBINE(T, a, b) ((a) && (b))
#define LM_RED_all_NONEMPTY false
