"""The short way for a blocking all_reduce on the 'mpi' backend: one C call
(`lm_mpi_allreduce`, native/core/mpi_call.c) into the MPI library's own MPI_Allreduce, found in the
process once mpi4py has loaded it, with the tensor's memory as the buffer. Lending a tensor to
mpi4py as a NumPy view costs about what a 1 KB all_reduce takes in MPI; this way costs one call.
What it cannot take (an op MPI has no counterpart for, AVG's division, a dtype NumPy or MPI lacks,
a non-contiguous or CUDA tensor) goes the general way, which also raises the errors."""
import ctypes
import os

import numpy as np

from .._C import ffi
from .._dtype import BY_CODE
from ._mpi import datatype as mpi_datatype, mpi
from ._reduce_op import ReduceOp, mpi_op


def _mpi_library():
    """The path of the MPI library mpi4py loaded (libmpi.so.*), or None where the process's
    mappings cannot be read (not Linux)."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if os.path.basename(path).startswith("libmpi.so"):
                    return path
    except OSError:
        return None
    return None


def _allreduce_address():
    path = _mpi_library()
    if path is None:
        return None
    try:
        return ctypes.cast(ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL | os.RTLD_NOLOAD).MPI_Allreduce,
                           ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None


class ShortAllreduce:
    """Per ReduceOp, the table lm_mpi_allreduce reads (see loom.h); `sum` is SUM's, the op of
    nearly every call."""

    @classmethod
    def for_comm(cls, comm):
        fn = _allreduce_address()
        return None if fn is None else cls(fn, comm)

    def __init__(self, fn, comm):
        self._head = (fn, int(mpi().IN_PLACE), comm.handle)
        self._tables = {}
        self.sum = self.table(ReduceOp.SUM)

    def table(self, op):
        found = self._tables.get(op)
        if found is None:
            cells = list(self._head)
            for dtype in BY_CODE:
                cells += _handles(op, dtype)
            self._tables[op] = found = ffi.new("uintptr_t[]", cells)
        return found


def _handles(op, dtype):
    """(MPI datatype, MPI op) for `op` on `dtype`, or (0, 0) where the general way must run (it
    also raises the errors)"""
    datatype = mpi_datatype(dtype)
    if op is ReduceOp.AVG or not isinstance(op, ReduceOp) or datatype is None:
        return 0, 0
    try:
        mop = mpi_op(op, np.empty(0, dtype.numpy), "all_reduce()")
    except (TypeError, ValueError):
        return 0, 0
    return datatype.handle, mop.handle
