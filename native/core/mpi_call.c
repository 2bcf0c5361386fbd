/* A blocking MPI_Allreduce on a tensor's own memory, called through the address of the MPI
 * library's MPI_Allreduce that loom.distributed found in the process (mpi4py loaded that
 * library; loom links no MPI). One C call per collective: a small message takes a microsecond or
 * two in MPI, about what lending the tensor to mpi4py as a NumPy buffer cost on top. */
#include <limits.h>

#include "loom.h"

/* MPI handles are pointers (Open MPI) or ints (MPICH): either travels in an integer register, so
 * the callee reads its own type from a uintptr_t (the SysV and AAPCS64 calling conventions). */
typedef int (*lm_allreduce_fn)(const void *send, void *recv, int count, uintptr_t datatype, uintptr_t op,
                               uintptr_t comm);

int lm_mpi_allreduce(lm_tensor *t, const uintptr_t *table) {
    uintptr_t datatype = table[3 + 2 * t->dtype], op = table[4 + 2 * t->dtype];
    int64_t n = lm_numel(t);
    if (!datatype || t->device != LM_CPU || !lm_is_contiguous(t) || n > INT_MAX) return -1;
    return ((lm_allreduce_fn)table[0])((const void *)table[1], lm_data_ptr(t), (int)n, datatype, op, table[2]);
}
