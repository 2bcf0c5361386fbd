"""ReduceOp and its MPI operations. MPI has no average: AVG is a SUM divided afterwards.
Booleans reduce with MPI's logical operations (MPI defines no arithmetic on C_BOOL)."""
import enum

import numpy as np

from ._mpi import mpi


class ReduceOp(enum.Enum):
    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"

    def __repr__(self):
        return f"<ReduceOp.{self.name}>"


_cache = {}


def mpi_op(op, array, what):
    key = (op, array.dtype.kind)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    _cache[key] = found = _lookup(op, array, what)
    return found


def _lookup(op, array, what):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"{what}: op must be a loom.distributed.ReduceOp (got {op!r})")
    MPI = mpi()
    if array.dtype == np.bool_:
        table = {ReduceOp.SUM: MPI.LOR, ReduceOp.MAX: MPI.LOR, ReduceOp.BOR: MPI.LOR, ReduceOp.PRODUCT: MPI.LAND,
                 ReduceOp.MIN: MPI.LAND, ReduceOp.BAND: MPI.LAND, ReduceOp.BXOR: MPI.LXOR}
        if op not in table:
            raise ValueError(f"{what}: {op!r} is not defined for bool tensors")
        return table[op]
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and array.dtype.kind not in "iu":
        raise ValueError(f"{what}: {op!r} needs an integer or bool tensor (got {array.dtype})")
    if array.dtype.kind == "c" and op not in (ReduceOp.SUM, ReduceOp.AVG):
        raise ValueError(f"{what}: {op!r} is not supported on complex tensors")
    if op is ReduceOp.AVG and array.dtype.kind not in "fc":
        raise ValueError(f"{what}: ReduceOp.AVG needs a floating point or complex tensor (got {array.dtype})")
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op]


def finish_avg(op, array, n):
    if op is ReduceOp.AVG:
        array /= n
