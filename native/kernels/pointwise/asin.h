/* asin: inverse sine */
#define LM_PW_asin(T, self) LM_CMATH(asin, self)
