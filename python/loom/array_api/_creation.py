"""The standard's creation functions: asarray (copy= semantics, Python scalars and nested
sequences, arrays of any dtype), arange, empty, zeros, ones, full, the *_like forms, eye,
linspace, meshgrid, tril, triu and from_dlpack."""
import builtins
import math

import numpy as np

from .. import _ops
from .._dtype import CPU, FROM_NUMPY, device as _device_cls
from .._multi import meshgrid as _meshgrid
from .._numpy import as_tensor, from_dlpack as _from_dlpack, tensor as _tensor
from .._tensor import Tensor
from ._dtypes import COMPLEX, DEFAULT_COMPLEX, DEFAULT_FLOAT, DEFAULT_INT, bool as _bool


def _dev(device):
    if device is None:
        return CPU
    return device if isinstance(device, _device_cls) else _device_cls(device)


def _default_for(value):
    if isinstance(value, builtins.bool):
        return _bool
    if isinstance(value, int):
        return DEFAULT_INT
    if isinstance(value, float):
        return DEFAULT_FLOAT
    if isinstance(value, complex):
        return DEFAULT_COMPLEX
    return None


def _nested_kind(obj):
    """The default dtype of a (nested) sequence of Python scalars: the widest kind in it."""
    order = {_bool: 0, DEFAULT_INT: 1, DEFAULT_FLOAT: 2, DEFAULT_COMPLEX: 3}
    best = None
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, Tensor):
            d = o.dtype
            if best is None or (d in order and order.get(best, -1) < order[d]) or d not in order:
                best = d
        else:
            d = _default_for(o)
            if d is None:
                return None
            if best is None or order.get(d, -1) > order.get(best, -1):
                best = d
    return best


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """An array from an array, a Python scalar, a nested sequence or an object with the buffer
    protocol; copy=True always copies, copy=False never does (an error where it must)."""
    if isinstance(obj, Tensor):
        out = obj
        if device is not None and _dev(device) != obj.device:
            if copy is False:
                raise ValueError("asarray(): copy=False but the device differs")
            out = out.to(_dev(device))
        if dtype is not None and dtype is not out.dtype:
            if copy is False:
                raise ValueError("asarray(): copy=False but the dtype differs")
            return out.to(dtype)
        if copy and out is obj:
            return obj.clone()
        return out
    if copy is False and not hasattr(obj, "__dlpack__") and not isinstance(obj, (np.ndarray, memoryview)):
        raise ValueError("asarray(): copy=False needs an object whose memory can be shared")
    if isinstance(obj, (np.ndarray, np.generic)) or hasattr(obj, "__array_interface__"):
        a = np.asarray(obj)
        if copy:
            a = a.copy()
        t = as_tensor(a)
        return t if dtype is None else t.to(dtype)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return as_tensor(np.frombuffer(obj, dtype=np.uint8) if dtype is None else
                         np.frombuffer(obj, dtype=dtype.numpy))
    if dtype is None:
        dtype = _nested_kind(obj)
    if isinstance(obj, (list, tuple)) and any(isinstance(o, Tensor) for o in _flat(obj)):
        obj = _unwrap(obj)
    if dtype is not None and dtype in COMPLEX:
        return _tensor(np.asarray(obj, dtype=dtype.numpy), device=_dev(device))
    if dtype is not None and dtype.is_floating_point:
        return _tensor(np.asarray(obj, dtype=dtype.numpy), device=_dev(device))
    return _tensor(obj, dtype=dtype, device=_dev(device))


def _flat(obj):
    for o in obj:
        if isinstance(o, (list, tuple)):
            yield from _flat(o)
        else:
            yield o


def _unwrap(obj):
    if isinstance(obj, (list, tuple)):
        return [_unwrap(o) for o in obj]
    if isinstance(obj, Tensor):
        return obj.tolist() if obj.ndim else obj.item()
    return obj


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in [start, stop); the count is ceil((stop - start) / step)."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = DEFAULT_FLOAT if any(isinstance(v, float) for v in (start, stop, step)) else DEFAULT_INT
    n = builtins.max(0, math.ceil((stop - start) / step)) if step != 0 else 0
    if n == 0:
        return _ops.empty((0,), dtype=dtype, device=_dev(device))
    if dtype.is_floating_point:
        return _ops.add(_ops.mul(_ops.arange(n, dtype=float64_for(dtype), device=_dev(device)), step),
                        start).to(dtype)
    return _ops.arange(start, start + n * step, step, dtype=dtype, device=_dev(device))[:n]


def float64_for(dtype):
    return FROM_NUMPY[np.dtype("float64")]


def empty(shape, *, dtype=None, device=None):
    """An uninitialised array."""
    return _ops.empty(_shape(shape), dtype=dtype or DEFAULT_FLOAT, device=_dev(device))


def zeros(shape, *, dtype=None, device=None):
    """An array of zeros."""
    return _ops.zeros(_shape(shape), dtype=dtype or DEFAULT_FLOAT, device=_dev(device))


def ones(shape, *, dtype=None, device=None):
    """An array of ones."""
    return _ops.ones(_shape(shape), dtype=dtype or DEFAULT_FLOAT, device=_dev(device))


def full(shape, fill_value, *, dtype=None, device=None):
    """An array filled with fill_value (dtype from it when not given)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dtype = dtype or _default_for(fill_value)
    if dtype in COMPLEX:
        return _ops.full(_shape(shape), fill_value, dtype=dtype, device=_dev(device))
    return _ops.full(_shape(shape), fill_value, dtype=dtype, device=_dev(device))


def empty_like(x, /, *, dtype=None, device=None):
    """An uninitialised array shaped as x."""
    return _ops.empty(tuple(x.shape), dtype=dtype or x.dtype, device=_dev(device or x.device))


def zeros_like(x, /, *, dtype=None, device=None):
    """Zeros shaped as x."""
    return _ops.zeros(tuple(x.shape), dtype=dtype or x.dtype, device=_dev(device or x.device))


def ones_like(x, /, *, dtype=None, device=None):
    """Ones shaped as x."""
    return _ops.ones(tuple(x.shape), dtype=dtype or x.dtype, device=_dev(device or x.device))


def full_like(x, /, fill_value, *, dtype=None, device=None):
    """fill_value shaped as x."""
    return _ops.full(tuple(x.shape), fill_value, dtype=dtype or x.dtype, device=_dev(device or x.device))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """Ones on the k-th diagonal of an n_rows x n_cols array."""
    n_cols = n_rows if n_cols is None else n_cols
    dtype = dtype or DEFAULT_FLOAT
    out = _ops.zeros((n_rows, n_cols), dtype=DEFAULT_INT if dtype in COMPLEX else dtype, device=_dev(device))
    if n_rows and n_cols and -n_rows < k < n_cols:
        m = builtins.min(n_rows - builtins.max(-k, 0), n_cols - builtins.max(k, 0))
        rows = _ops.arange(m, device=_dev(device)) + builtins.max(-k, 0)
        cols = _ops.arange(m, device=_dev(device)) + builtins.max(k, 0)
        out[rows, cols] = 1
    return out.to(dtype) if out.dtype is not dtype else out


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """num evenly spaced values from start to stop (stop included when endpoint)."""
    if dtype is None:
        dtype = DEFAULT_COMPLEX if isinstance(start, complex) or isinstance(stop, complex) else DEFAULT_FLOAT
    if not endpoint:
        if num == 0:
            return _ops.empty((0,), dtype=dtype, device=_dev(device))
        a = np.linspace(start, stop, num, endpoint=False)
        return _tensor(a.astype(dtype.numpy), device=_dev(device))
    a = np.linspace(start, stop, num)
    return _tensor(a.astype(dtype.numpy), device=_dev(device))


def meshgrid(*arrays, indexing="xy"):
    """Coordinate arrays from 1-d arrays ('xy': Cartesian, 'ij': matrix indexing)."""
    if not arrays:
        return []
    return list(_meshgrid(*arrays, indexing=indexing))


def tril(x, /, *, k=0):
    """The lower triangle (on and below the k-th diagonal) of the last two axes."""
    return _ops.tril(x, k)


def triu(x, /, *, k=0):
    """The upper triangle (on and above the k-th diagonal) of the last two axes."""
    return _ops.triu(x, k)


def from_dlpack(x, /, *, device=None, copy=None):
    """An array sharing x's memory through DLPack."""
    out = _from_dlpack(x)
    if copy:
        out = out.clone()
    if device is not None:
        out = out.to(_dev(device))
    return out
