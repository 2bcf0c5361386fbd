"""Creating a layer's parameter storage with the constructor's dtype/device arguments."""


def empty_param(shape, dtype=None, device=None):
    from .._ops import empty
    from .parameter import Parameter
    return Parameter(empty(list(shape), dtype=dtype, device=device))


def pair(v, name="argument"):
    """An int or a 1- or 2-sequence as a pair, as PyTorch's _pair."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (v, v)
    v = tuple(v)
    if len(v) == 1:
        return (v[0], v[0])
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {v}")
    return v
