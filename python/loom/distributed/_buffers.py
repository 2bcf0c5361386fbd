"""Tensors as MPI buffers. A contiguous CPU tensor is lent to MPI as the NumPy view of its
own memory (zero-copy, no pickling); a non-contiguous one goes through a contiguous copy,
written back after the operation when the tensor receives data. A dtype NumPy or the MPI library
lacks (bfloat16; float16 before MPI 4) moves as the integers holding its bits; reductions, which
MPI cannot do on it, take a float32 copy (exact for every 16-bit float) whose result is rounded
back once."""
import numpy as np

from .._numpy import from_numpy
from .._tensor import Tensor, _RawView
from ._mpi import datatype as mpi_datatype


def _check(t, what):
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: expected a loom Tensor (got {type(t).__name__})")
    if t.is_cuda:
        raise RuntimeError(f"{what}: the 'mpi' backend takes CPU tensors; this tensor is on CUDA")


def host_array(t, reduces=False):
    """NumPy's view of a CPU tensor (see the module's note for bfloat16)."""
    t = t.detach()
    if mpi_datatype(t.dtype) is not None:
        return np.asarray(t)
    return np.asarray(t.float()) if reduces else np.asarray(_RawView(t)).view(f"u{t.dtype.itemsize}")


class Buf:
    """`array` is what MPI reads or writes; `writeback()` copies it into the tensor if staged."""

    def __init__(self, t, what, writes=True, reduces=False):
        _check(t, what)
        self._round = reduces and mpi_datatype(t.dtype) is None
        view = host_array(t, reduces)
        if view.flags.c_contiguous and not self._round:
            self.array, self._target = view, None
        else:
            self.array = np.ascontiguousarray(view)
            self._target = (t.detach() if self._round else view) if writes else None

    def writeback(self):
        if self._target is None:
            return
        if self._round:
            self._target.copy_(from_numpy(self.array))
        else:
            self._target[...] = self.array
