#define LM_RED_prod_IDENTITY(T) ((T)1)
#define LM_RED_prod_COMBINE(T, a, b) ((a) * (b))
#define LM_RED_prod_NONEMPTY false
