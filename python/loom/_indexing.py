"""Indexing: basic keys (ints, slices with steps, None, ...) as strided views;
advanced keys (integer tensors, lists, boolean masks) as a basic view whose
indexed dims are moved to the front and read by the `index` op (written by
`index_put_`), with PyTorch's rules for where the indexed dims land."""
import operator
import re

import numpy as np

from ._C import ffi, lib
from ._dtype import int64
from ._errors import LoomIndexError, raise_error, renamed
from ._numpy import tensor
from ._ops import arange, full, index, index_put_, nonzero
from ._meta import MetaTensor, make as meta_make
from ._tensor import Tensor, _new
from .autograd import indexing
from .autograd.graph import needs_grad


def _view_for(t, key, op="__getitem__"):
    if not isinstance(key, tuple):
        key = (key,)
    h = t._h
    if h is None:   # a meta tensor: its metadata is Python's
        shape, strides, offset = list(t.shape), list(t.stride()), t.storage_offset()
    else:
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


def _is_advanced(k):
    return isinstance(k, (Tensor, list, range, np.ndarray, bool, np.bool_))


def _as_index(k, op):
    """An advanced key entry as a Tensor: integer (int64/int32) or a bool/uint8 mask."""
    if isinstance(k, Tensor):
        t = k
    else:
        if isinstance(k, range):
            k = list(k)
        if isinstance(k, list) and not k:
            return tensor([], dtype=int64)
        try:
            t = tensor(k)
        except (TypeError, ValueError) as e:
            raise IndexError(f"{op}(): could not use {type(k).__name__} {k!r} as an index ({e})") from None
    if t.dtype.is_floating_point:
        raise IndexError(f"{op}(): tensors used as indices must be long, int, byte or bool tensors, "
                         f"got {t.dtype.name}")
    return t


def _advanced_plan(t, key, op):
    """(view, dims, indices, front): the basic view of t under key, the dims of that view
    indexed by `indices` (int64 tensors), and whether the result's broadcast dims go first."""
    basic, adv = [], []   # adv: (position in basic key, int index tensor or mask)
    for k in key:
        if k is Ellipsis or k is None or isinstance(k, slice) or not _is_advanced(k):
            basic.append(k)
            continue
        i = _as_index(k, op)
        if i.dtype.name in ("bool", "uint8") and i.ndim == 0:   # x[True]: a new dim of size 1 (or 0)
            adv.append((len(basic), arange(1 if i.item() else 0)))
            basic.append(None)
        elif i.dtype.name in ("bool", "uint8"):
            adv.append((len(basic), i))
            basic += [slice(None)] * i.ndim
        else:
            adv.append((len(basic), i))
            basic.append(slice(None))
    view = getitem(t, tuple(basic), op)
    # where each key entry lands in the view: None and slices keep a dim, ints drop theirs
    n_used = sum(1 for k in basic if k is not None and k is not Ellipsis)
    at, out_dim = {}, 0
    for pos, k in enumerate(basic):
        at[pos] = out_dim
        if k is Ellipsis:
            out_dim += t.ndim - n_used
        elif k is None or isinstance(k, slice):
            out_dim += 1
    dims, indices = [], []
    for pos, i in adv:
        d = at[pos]
        if i.dtype.name in ("bool", "uint8"):
            shape = tuple(view.shape[d:d + i.ndim])
            if tuple(i.shape) != shape:
                raise IndexError(f"{op}(): The shape of the mask {list(i.shape)} at index {d} does not match the "
                                 f"shape of the indexed tensor {list(shape)} at index {d}")
            nz = nonzero(i)
            for j in range(i.ndim):
                dims.append(d + j)
                indices.append(nz[:, j])
        else:
            dims.append(d)
            indices.append(i)
    front = any(b != a + 1 for a, b in zip(dims, dims[1:]))   # not adjacent: broadcast dims go first (NumPy)
    return view, dims, indices, front


def _index_error(e, dims, op):
    """The kernel counts dims among the index tensors; name the indexed tensor's own dim."""
    msg = str(e).split("(): ", 1)[-1]
    msg = re.sub(r"for dimension (\d+)", lambda m: f"for dimension {dims[int(m[1])]}", msg)
    return LoomIndexError(f"{op}(): {msg}")


def _to_front(view, dims):
    rest = [d for d in range(view.ndim) if d not in dims]
    perm = dims + rest
    return view if perm == list(range(view.ndim)) else view.permute(perm)


def _result_perm(nb, ndim, dims, front):
    """The permutation taking index()'s [broadcast dims, other dims] to PyTorch's result order."""
    if front or dims[0] == 0:
        return None
    first = dims[0]
    return list(range(nb, nb + first)) + list(range(nb)) + list(range(nb + first, ndim))


def advanced_getitem(t, key, op="__getitem__"):
    view, dims, indices, front = _advanced_plan(t, key, op)
    try:
        r = index(_to_front(view, dims), indices)
    except IndexError as e:
        raise _index_error(e, dims, op) from None
    nb = r.ndim - (view.ndim - len(dims))
    perm = _result_perm(nb, r.ndim, dims, front)
    return r if perm is None else r.permute(perm)


def advanced_setitem(t, key, value, op="__setitem__"):
    view, dims, indices, front = _advanced_plan(t, key, op)
    v = value
    if isinstance(v, (bool, int, float)):   # a number is range-checked against t's dtype, as by fill_
        try:
            v = full((), v, dtype=t.dtype)
        except OverflowError as e:
            raise renamed(e, op) from None
    elif not isinstance(v, Tensor):
        v = tensor(v, dtype=t.dtype)
    if v.dtype != t.dtype:
        v = v.to(t.dtype)
    b = _broadcast_shape([tuple(i.shape) for i in indices], op)
    rest = [view.shape[d] for d in range(view.ndim) if d not in dims]
    perm = _result_perm(len(b), len(b) + len(rest), dims, front)
    shape = list(b) + rest if perm is None else rest[:dims[0]] + list(b) + rest[dims[0]:]
    v = _broadcast_value(v, shape, op)   # shaped like the result x[key]
    if perm is not None:   # index_put_ reads it in index()'s order: broadcast dims first
        inverse = [0] * len(perm)
        for i, p in enumerate(perm):
            inverse[p] = i
        v = v.permute(inverse)
    try:
        index_put_(_to_front(view, dims), indices, v)
    except IndexError as e:
        raise _index_error(e, dims, op) from None


def _broadcast_shape(shapes, op):
    out = []
    for s in shapes:
        n = max(len(out), len(s))
        a = [1] * (n - len(out)) + list(out)
        b = [1] * (n - len(s)) + list(s)
        if any(x != y and x != 1 and y != 1 for x, y in zip(a, b)):
            raise IndexError(f"{op}(): shape mismatch: indexing tensors could not be broadcast together with "
                             f"shapes {', '.join(str(list(s)) for s in shapes)}")
        out = [y if x == 1 else x for x, y in zip(a, b)]
    return tuple(out)


def _broadcast_value(v, shape, op):
    vs = list(v.shape)
    while len(vs) > len(shape) and vs[0] == 1:   # leading size-1 dims of the value are dropped, as PyTorch
        vs = vs[1:]
    ok = len(vs) <= len(shape) and all(a in (1, b) for a, b in zip(vs[::-1], shape[::-1]))
    if not ok:
        raise RuntimeError(f"{op}(): shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(shape)}")
    return v.reshape(tuple(vs)).expand(tuple(shape))


def getitem(t, key, op="__getitem__"):
    if _is_advanced(key) or isinstance(key, tuple) and any(_is_advanced(k) for k in key):
        return advanced_getitem(t, key if isinstance(key, tuple) else (key,), op)
    shape, strides, offset = _view_for(t, key, op)
    if isinstance(t, MetaTensor):
        return meta_make(shape, t.dtype, strides, offset, t.requires_grad)
    h = lib.lm_as_strided(t._h, len(shape), shape, strides, offset)
    if not h:
        raise_error(op)
    r = _new(h)
    if t.__class__ is not Tensor and op == "__getitem__":
        if indexing.enabled() and getattr(t, "_ag", None) is not None:
            return indexing.record_getitem(t, key, r)
    return r


def setitem(t, key, value):
    if _is_advanced(key) or isinstance(key, tuple) and any(_is_advanced(k) for k in key):
        key = key if isinstance(key, tuple) else (key,)

        def write():
            advanced_setitem(t, key, value)
        return _write_with_grad(t, key, value, write)
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
            try:
                view.fill_(value)
            except OverflowError as e:
                raise renamed(e, "__setitem__") from None
        else:
            view.copy_(tensor(value))
    _write_with_grad(t, key, value, write)


def _write_with_grad(t, key, value, write):
    if t.__class__ is not Tensor or (isinstance(value, Tensor) and value.__class__ is not Tensor):
        if indexing.enabled() and needs_grad(t, value):
            return indexing.setitem_with_grad(t, key, value, write)
    write()


# installed here, as _ops installs the methods: Tensor itself knows no feature above it
Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem
