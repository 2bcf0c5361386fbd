"""The standard's searching, sorting, set and indexing functions: argmax/argmin, nonzero,
searchsorted, where, sort/argsort (stable), unique_all/counts/inverse/values, take and
take_along_axis."""
from collections import namedtuple

from .. import _ops
from .._everyday2 import unique as _loom_unique
from .._tensor_extras import nonzero as _nonzero
from ._dtypes import REAL_FLOATING, COMPLEX
from ._elementwise import promote_args

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def argmax(x, /, *, axis=None, keepdims=False):
    """The index of the first maximum along axis (of the flattened x when None)."""
    if axis is None:
        out = _ops.argmax(x.reshape(-1), 0)
        return out.reshape((1,) * x.ndim) if keepdims else out
    return _ops.argmax(x, axis, keepdim=keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    """The index of the first minimum along axis (of the flattened x when None)."""
    if axis is None:
        out = _ops.argmin(x.reshape(-1), 0)
        return out.reshape((1,) * x.ndim) if keepdims else out
    return _ops.argmin(x, axis, keepdim=keepdims)


def nonzero(x, /):
    """The indices of the non-zero elements, one array per axis."""
    if x.ndim == 0:
        raise ValueError("nonzero(): needs an array of one or more dimensions")
    return tuple(_nonzero(x, as_tuple=True))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Where x2's elements would go in the sorted 1-d x1 to keep it sorted."""
    if sorter is not None:
        x1 = _ops.take(x1, sorter)
    a, b = promote_args(x1, x2, "searchsorted")
    return _ops.searchsorted(a, b, side=side)


def where(condition, x1, x2, /):
    """x1 where condition holds, else x2 (promoted by the standard's rules)."""
    a, b = promote_args(x1, x2, "where")
    return _ops.where(condition, a, b)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """x sorted along axis (NaN last)."""
    if x.ndim == 0:
        return x.clone()
    return _ops.sort(x, dim=axis, descending=descending, stable=True)[0]


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The indices that sort x along axis (stable: equal elements keep their order)."""
    if x.ndim == 0:
        return _ops.zeros((), dtype=_ops.arange(1).dtype)
    return _ops.sort(x, dim=axis, descending=descending, stable=True)[1]


def _unique(x):
    flat = x.reshape(-1)
    values, inverse, counts = _loom_unique(flat, sorted=True, return_inverse=True, return_counts=True)
    if x.dtype in REAL_FLOATING or x.dtype in COMPLEX:
        nan = _ops.isnan(values)
        if bool(_ops.any(nan)):
            # every NaN is distinct: one value and a count of 1 each
            keep = values[~nan]
            nans = flat[_ops.isnan(flat)]
            kc = counts[~nan]
            values = _ops.cat([keep, nans])
            counts = _ops.cat([kc, _ops.ones(nans.shape, dtype=counts.dtype)])
            pos = _ops.arange(flat.shape[0])
            nan_pos = pos[_ops.isnan(flat)]
            inv_nan = _ops.arange(nans.shape[0]) + keep.shape[0]
            inverse = inverse.clone()
            inverse[nan_pos] = inv_nan
    return values, inverse.reshape(tuple(x.shape)), counts


def _first_indices(x, values, inverse):
    n = values.shape[0]
    flat_inv = inverse.reshape(-1)
    pos = _ops.arange(flat_inv.shape[0])
    first = _ops.full((n,), flat_inv.shape[0], dtype=pos.dtype)
    return first.scatter_reduce(0, flat_inv, pos, reduce="amin", include_self=True) if n else first


def unique_all(x, /):
    """The unique values, the index of each one's first occurrence, the inverse and the counts."""
    values, inverse, counts = _unique(x)
    return UniqueAllResult(values, _first_indices(x, values, inverse), inverse, counts)


def unique_counts(x, /):
    """The unique values and how often each occurs."""
    values, _, counts = _unique(x)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    """The unique values and, per element of x, its value's index."""
    values, inverse, _ = _unique(x)
    return UniqueInverseResult(values, inverse)


def unique_values(x, /):
    """The unique values (each NaN its own)."""
    return _unique(x)[0]


def take(x, indices, /, *, axis=None):
    """x's elements at indices along axis (x must be 1-d when axis is None)."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take(): axis is required for an array of more than one dimension")
        axis = 0
    idx = indices % x.shape[axis] if x.shape[axis] else indices
    return _ops.index_select(x, axis, idx)


def take_along_axis(x, indices, /, *, axis=-1):
    """x's elements at indices (an array of x's rank) along axis."""
    idx = indices % x.shape[axis] if x.shape[axis] else indices
    return _ops.take_along_dim(x, idx, axis)


