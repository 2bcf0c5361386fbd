"""Composite ops of ops/linalg_composite.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/linalg_composite.yaml names it with
`composite: true`."""
import builtins as _b

from .. import _ops
from .._dtype import int64
from .._linalg_api import inv


def linalg_matrix_power(self, n):
    if not self.dtype.is_floating_point and not self.dtype.is_complex:
        raise TypeError(f"not implemented for dtype {self.dtype.name}")
    if self.ndim < 2 or self.shape[-1] != self.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices")
    if n == 0:
        return _ops.eye(self.shape[-1], dtype=self.dtype, device=self.device).expand(list(self.shape)).clone()
    if n < 0:
        self, n = inv(self), -n
    result, base = None, self
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


def linalg_cross(self, other, dim):
    if not self.dtype.is_floating_point:
        raise TypeError(f"not implemented for dtype {self.dtype.name}")
    nd = _b.max(self.ndim, other.ndim)
    if not -nd <= dim < _b.max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    if self.ndim == 0 or other.ndim == 0 or self.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. "
                           f"Got {self.shape[dim] if self.ndim else 0} and {other.shape[dim] if other.ndim else 0}")
    a = [self.narrow(dim, i, 1) for i in range(3)]
    b = [other.narrow(dim, i, 1) for i in range(3)]
    return _ops.cat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], dim)


def linalg_vecdot(x, y, dim):
    if not x.dtype.is_floating_point:
        raise TypeError(f"not implemented for dtype {x.dtype.name}")
    return (x * y).sum([dim])


def linalg_vander(x, n):
    if not x.dtype.is_floating_point:   # integers' powers are int64 (uint64's wrap), as PyTorch's cumprod gives
        x = x.to(int64)
    if x.ndim < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    n = x.shape[-1] if n is None else n
    if n < 1:
        raise RuntimeError("N must be greater than 1.")
    cols = [_ops.ones_like(x).unsqueeze(-1)]
    for _ in range(1, n):
        cols.append(cols[-1] * x.unsqueeze(-1))
    return _ops.cat(cols, -1)
