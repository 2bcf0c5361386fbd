/* acos: inverse cosine */
#define LM_PW_acos(T, self) LM_CMATH(acos, self)
