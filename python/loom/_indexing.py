"""Basic indexing (ints, slices with steps, None, ...) as strided views."""
import operator

from ._C import ffi, lib
from ._errors import raise_error
from ._tensor import Tensor


def _view_for(t, key, op="__getitem__"):
    if not isinstance(key, tuple):
        key = (key,)
    h = t._h
    shape = ffi.unpack(h.shape, h.ndim)
    strides = ffi.unpack(h.strides, h.ndim)
    offset = h.offset
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError(f"{op}(): an index can only have a single ellipsis ('...')")
    if consumed > len(shape):
        raise IndexError(f"{op}(): too many indices for tensor of dimension {len(shape)}")
    out_shape, out_strides, d = [], [], 0
    for k in key:
        if k is None:
            out_shape.append(1)
            out_strides.append(0)
        elif k is Ellipsis:
            n = len(shape) - consumed
            out_shape += shape[d:d + n]
            out_strides += strides[d:d + n]
            d += n
        elif isinstance(k, slice):
            start, stop, step = k.indices(shape[d]) if (k.step or 1) > 0 else (0, 0, 0)
            if step <= 0:
                raise ValueError(f"{op}(): step must be greater than zero")
            n = len(range(start, stop, step))
            offset += start * strides[d] if n else 0
            out_shape.append(n)
            out_strides.append(strides[d] * step)
            d += 1
        elif isinstance(k, Tensor) or isinstance(k, (list, bool)):
            raise IndexError(f"{op}(): indexing with tensors, lists or booleans is not supported yet; "
                             "use ints, slices, None and ...")
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError(f"{op}(): only integers, slices (`:`), ellipsis (`...`) and None are valid indices "
                                 f"(got {type(k).__name__})") from None
            if not -shape[d] <= i < shape[d]:
                raise IndexError(f"{op}(): index {i} is out of bounds for dimension {d} with size {shape[d]}")
            offset += (i % shape[d]) * strides[d]
            d += 1
    out_shape += shape[d:]
    out_strides += strides[d:]
    return out_shape, out_strides, offset


def getitem(t, key, op="__getitem__"):
    from ._args import _new
    shape, strides, offset = _view_for(t, key, op)
    h = lib.lm_as_strided(t._h, len(shape), shape, strides, offset)
    if not h:
        raise_error(op)
    r = _new(h)
    if t.__class__ is not Tensor and op == "__getitem__":
        from .autograd import indexing
        if indexing.enabled() and getattr(t, "_ag", None) is not None:
            return indexing.record_getitem(t, key, r)
    return r


def setitem(t, key, value):
    view = getitem(t, key, "__setitem__")

    def write():
        if isinstance(value, Tensor):
            v = value
            if v.ndim > view.ndim:   # as PyTorch: leading size-1 dims of the value are dropped
                lead = v.ndim - view.ndim
                if all(s == 1 for s in v.shape[:lead]):
                    v = v.reshape(tuple(v.shape[lead:]))
            view.copy_(v)
        elif isinstance(value, (int, float, bool)) or hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0:
            view.fill_(value)
        else:
            from ._numpy import tensor
            view.copy_(tensor(value))
    if t.__class__ is not Tensor or (isinstance(value, Tensor) and value.__class__ is not Tensor):
        from .autograd import indexing
        from .autograd.graph import needs_grad
        if indexing.enabled() and needs_grad(t, value):
            return indexing.setitem_with_grad(t, key, value, write)
    write()
