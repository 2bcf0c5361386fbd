"""Creating a layer's parameter storage with the constructor's dtype/device arguments."""
from .._ops import empty
from .parameter import Parameter


def empty_param(shape, dtype=None, device=None):
    return Parameter(empty(list(shape), dtype=dtype, device=device))


def ntuple(v, n, name="argument"):
    """An int or a 1- or n-sequence as an n-tuple, as PyTorch's _ntuple."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,) * n
    v = tuple(v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise ValueError(f"{name} must be an int or {'a pair of' if n == 2 else n} ints, got {v}")
    return v


def pair(v, name="argument"):
    return ntuple(v, 2, name)
