"""The standard's manipulation functions: broadcast_arrays, broadcast_to, concat, expand_dims,
flip, moveaxis, permute_dims, repeat, reshape, roll, squeeze, stack, tile, unstack."""
from .. import _ops
from .._multi import broadcast_tensors, unbind
from ._dtypes import promote


def _common(arrays):
    d = arrays[0].dtype
    for a in arrays[1:]:
        d = promote(d, a.dtype)
    return [a if a.dtype is d else a.to(d) for a in arrays]


def broadcast_arrays(*arrays):
    """The arrays broadcast against each other."""
    return list(broadcast_tensors(*arrays))


def broadcast_to(x, /, shape):
    """x broadcast to shape."""
    return _ops.broadcast_to(x, tuple(shape))


def concat(arrays, /, *, axis=0):
    """The arrays joined along axis (None: flattened first), promoted to a common dtype."""
    arrays = _common(list(arrays))
    if axis is None:
        return _ops.cat([a.reshape(-1) for a in arrays], 0)
    return _ops.cat(arrays, axis)


def expand_dims(x, /, axis=0):
    """x with a new axis of size 1 at axis (negative axes count from the result's end)."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    n = x.ndim + len(axes)
    norm = []
    for a in axes:
        if not -n <= a < n:
            raise IndexError(f"axis {a} is out of bounds for the result's {n} dimensions")
        norm.append(a % n)
    if len(set(norm)) != len(norm):
        raise ValueError("expand_dims(): repeated axis")
    for a in sorted(norm):
        x = _ops.unsqueeze(x, a)
    return x


def flip(x, /, *, axis=None):
    """x reversed along axis (all axes when None)."""
    if axis is None:
        axis = tuple(range(x.ndim))
    elif isinstance(axis, int):
        axis = (axis,)
    return _ops.flip(x, tuple(axis))


def moveaxis(x, source, destination, /):
    """x with axes moved from source to destination."""
    return _ops.movedim(x, source, destination)


def permute_dims(x, /, axes):
    """x's axes in the order axes."""
    return _ops.permute(x, tuple(axes))


def repeat(x, repeats, /, *, axis=None):
    """Each element repeated `repeats` times along axis (flattened first when None)."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    return _ops.repeat_interleave(x, repeats, dim=axis)


def reshape(x, /, shape, *, copy=None):
    """x in shape (copy=False: a view or an error)."""
    out = _ops.reshape(x, tuple(shape))
    if copy:
        return out.clone()
    if copy is False and out.data_ptr() != x.data_ptr() and x.numel():
        raise ValueError("reshape(): copy=False but a copy is needed")
    return out


def roll(x, /, shift, *, axis=None):
    """x rolled by shift along axis (flattened when None)."""
    if axis is None:
        return _ops.roll(x.reshape(-1), shift, 0).reshape(tuple(x.shape))
    if isinstance(shift, int) and not isinstance(axis, int):
        shift = (shift,) * len(axis)
    return _ops.roll(x, shift, axis)


def squeeze(x, /, axis):
    """x without the given axes, each of which must have size 1."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    norm = sorted({a % x.ndim if x.ndim else a for a in axes}, reverse=True)
    for a in norm:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze(): axis {a} has size {x.shape[a]}, not 1")
    for a in norm:
        x = _ops.squeeze(x, a)
    return x


def stack(arrays, /, *, axis=0):
    """The arrays joined along a new axis, promoted to a common dtype."""
    return _ops.stack(_common(list(arrays)), axis)


def tile(x, repetitions, /):
    """x repeated repetitions[i] times along each axis."""
    return _ops.tile(x, tuple(repetitions))


def unstack(x, /, *, axis=0):
    """The arrays along axis, as a tuple."""
    return tuple(unbind(x, axis))


