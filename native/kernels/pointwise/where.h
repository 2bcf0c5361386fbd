/* where: pick self where condition holds, else other */
#define LM_PW_where(T, condition, self, other) ((condition) ? (self) : (other))
