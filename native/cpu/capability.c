/* Which vector instructions the generated loops run with: PyTorch's names (torch.backends.cpu.
 * get_cpu_capability). A native build has them fixed at compile time; a generic one's loops are
 * clones the loader picked for this CPU (half_block.h's LM_CPU_CLONES), so the CPU says. */
#include "loom.h"

const char *lm_cpu_capability(void) {
#if defined(LM_CPU_CLONES_ON)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) return "AVX512";
    if (__builtin_cpu_supports("x86-64-v3")) return "AVX2";
    return "DEFAULT";
#elif defined(__AVX512F__)
    return "AVX512";
#elif defined(__AVX2__)
    return "AVX2";
#else
    return "DEFAULT";
#endif
}
