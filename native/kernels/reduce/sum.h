#define LM_RED_sum_IDENTITY(T) ((T)0)
#define LM_RED_sum_COMBINE(T, a, b) ((a) + (b))
#define LM_RED_sum_NONEMPTY false
