"""The standard's statistical and utility reductions (axis=, keepdims=, an empty axis tuple
reduces nothing), cumulative_sum/cumulative_prod (include_initial=) and diff."""
import builtins

from .. import _ops
from ._dtypes import BOOL, SIGNED, UNSIGNED, int64


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not -builtins.max(ndim, 1) <= a < builtins.max(ndim, 1):
            raise IndexError(f"axis {a} is out of bounds for an array of {ndim} dimensions")
        a = a % builtins.max(ndim, 1)
        if a in out:
            raise ValueError(f"axis {a} is repeated")
        out.append(a)
    return tuple(out)


def _reduce(op, x, axis, keepdims, **kw):
    axes = _axes(axis, x.ndim)
    if x.ndim == 0:
        return op(x, **kw) if kw else op(x.reshape(1), dim=0, keepdim=False)
    if not axes:
        return None
    return op(x, dim=axes, keepdim=keepdims, **kw)


def _sum_dtype(x, dtype):
    if dtype is not None:
        return dtype
    if x.dtype in SIGNED or x.dtype in BOOL:
        return int64
    if x.dtype in UNSIGNED:
        return int64   # loom has no uint64: the widest integer it has
    return x.dtype


def sum(x, /, *, axis=None, dtype=None, keepdims=False):   # noqa: A001
    """The sum over axis (integers accumulate in the widest integer of their kind)."""
    dtype = _sum_dtype(x, dtype)
    axes = _axes(axis, x.ndim)
    if not axes:
        return x.to(dtype, copy=True)
    return _ops.sum(x, dim=axes, keepdim=keepdims, dtype=dtype)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """The product over axis."""
    dtype = _sum_dtype(x, dtype)
    axes = _axes(axis, x.ndim)
    if not axes:
        return x.to(dtype, copy=True)
    y = x.to(dtype) if x.dtype is not dtype else x
    for a in sorted(axes, reverse=True):
        y = _ops.prod(y, a, keepdim=keepdims)
    return y if y.dtype is dtype else y.to(dtype)


def _same_dtype(op, name):
    def f(x, /, *, axis=None, keepdims=False):
        axes = _axes(axis, x.ndim)
        if not axes:
            return x.clone()
        return op(x, dim=axes, keepdim=keepdims)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"The standard's {name}: over axis (all axes when None), keeping reduced axes as 1 when keepdims."
    return f


max = _same_dtype(_ops.amax, "max")   # noqa: A001
min = _same_dtype(_ops.amin, "min")   # noqa: A001
mean = _same_dtype(_ops.mean, "mean")


def _bool_reduce(op, name):
    def f(x, /, *, axis=None, keepdims=False):
        axes = _axes(axis, x.ndim)
        b = x if x.dtype in BOOL else _ops.ne(x, 0)
        if not axes:
            return b.clone()
        for a in sorted(axes, reverse=True):
            b = op(b, a, keepdim=keepdims)
        return b
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"The standard's {name}: a logical reduction over axis."
    return f


all = _bool_reduce(_ops.all, "all")   # noqa: A001
any = _bool_reduce(_ops.any, "any")   # noqa: A001


def _moment(op, name):
    def f(x, /, *, axis=None, correction=0.0, keepdims=False):
        axes = _axes(axis, x.ndim)
        if not axes:   # each element alone: 0, NaN for NaN or infinite ones and for correction >= 1
            out = _ops.sub(x, x)
            return _ops.true_divide(out, 0.0) if 1 - correction <= 0 else out
        return op(x, dim=axes, correction=correction, keepdim=keepdims)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"The standard's {name}: over axis with `correction` degrees of freedom subtracted."
    return f


std = _moment(_ops.std, "std")
var = _moment(_ops.var, "var")


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """How many elements along axis are not zero (int64)."""
    return sum(_ops.ne(x, 0), axis=axis, keepdims=keepdims)


def _cumulative(op, name, initial):
    def f(x, /, *, axis=None, dtype=None, include_initial=False):
        if axis is None:
            if x.ndim > 1:
                raise ValueError(f"{name}(): axis is required for an array of more than one dimension")
            axis = 0
        if x.ndim == 0:
            raise ValueError(f"{name}(): needs an array of one or more dimensions")
        dtype = _sum_dtype(x, dtype)
        y = x.to(dtype) if x.dtype is not dtype else x
        axis = axis % x.ndim
        out = op(y, axis)
        if include_initial:
            shape = list(out.shape)
            shape[axis] = 1
            out = _ops.cat([_ops.full(tuple(shape), initial, dtype=dtype, device=x.device), out], axis)
        return out
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"The standard's {name}: along axis, with the identity first when include_initial."
    return f


cumulative_sum = _cumulative(_ops.cumsum, "cumulative_sum", 0)
cumulative_prod = _cumulative(_ops.cumprod, "cumulative_prod", 1)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The n-th discrete difference along axis (prepend/append joined first)."""
    parts = [p for p in (prepend, x, append) if p is not None]
    y = _ops.cat(parts, axis) if len(parts) > 1 else x
    for _ in range(n):
        m = y.shape[axis]
        y = _ops.sub(_ops.narrow(y, axis, 1, m - 1), _ops.narrow(y, axis, 0, m - 1)) if y.dtype not in BOOL \
            else _ops.ne(_ops.narrow(y, axis, 1, m - 1), _ops.narrow(y, axis, 0, m - 1))
    return y


