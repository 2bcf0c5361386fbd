/* amax: NaN wins, as in PyTorch; no identity, so empty reductions are errors */
#define LM_RED_amax_IDENTITY(T) LM_LOWEST(T)
#define LM_RED_amax_COMBINE(T, a, b) (((b) != (b) || (b) > (a)) ? (b) : (a))
#define LM_RED_amax_NONEMPTY true
