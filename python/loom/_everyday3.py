"""PyTorch's call forms that no schema spells, over ops/everyday3.yaml: vander's N= keyword (schema
arguments are lower_snake_case) and unravel_index, whose result is a tuple of as many tensors as
shape has dims."""
from numbers import Integral

from . import _ops
from ._args import takes_tensors as _takes_tensors
from ._errors import renamed as _renamed
from ._numpy import tensor as _tensor
from ._dtype import int64
from ._tensor import Tensor

__all__ = ["vander", "unravel_index"]


@_takes_tensors("x", N="int", increasing="bool")
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D x: N columns of its powers, decreasing unless increasing."""
    return _ops._vander(x, N, increasing)


@_takes_tensors(shape="int[]")
def unravel_index(indices, shape):
    """The coordinates in a tensor of the given shape of the flat indices, one int64 tensor per dim
    (out-of-range indices wrap around, as PyTorch's)."""
    if not isinstance(indices, Tensor):
        try:
            indices = _tensor(indices)
        except (TypeError, ValueError) as e:
            raise _renamed(e, "unravel_index") from None
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype.name == "bool":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, Integral) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if any(s == 0 for s in shape):
        raise RuntimeError("ZeroDivisionError")
    flat = indices.to(int64)
    coords = []
    for s in reversed(shape):
        coords.append(flat.remainder(s))
        flat = flat.floor_divide(s)
    return tuple(reversed(coords))
