"""Tensors as MPI buffers. A contiguous CPU tensor is lent to MPI as the NumPy view of its
own memory (zero-copy, no pickling); a non-contiguous one goes through a contiguous copy,
written back after the operation when the tensor receives data."""
import numpy as np

from .._tensor import Tensor


def _check(t, what):
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: expected a loom Tensor (got {type(t).__name__})")
    if t.is_cuda:
        raise RuntimeError(f"{what}: the 'mpi' backend takes CPU tensors; this tensor is on CUDA")


class Buf:
    """`array` is what MPI reads or writes; `writeback()` copies it into the tensor if staged."""

    def __init__(self, t, what, writes=True):
        _check(t, what)
        view = np.asarray(t.detach())
        if view.flags.c_contiguous:
            self.array, self._target = view, None
        else:
            self.array = np.ascontiguousarray(view)
            self._target = view if writes else None

    def writeback(self):
        if self._target is not None:
            self._target[...] = self.array


def staged(shape, dtype):
    return np.empty(shape, dtype=dtype.numpy)
