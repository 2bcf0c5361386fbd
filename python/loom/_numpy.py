"""Building tensors from Python data and NumPy arrays (zero-copy where asked)."""
import itertools

import numpy as np

from . import _dlpack_cuda
from ._C import ffi, lib
from ._dtype import (BY_CODE, BY_NAME, FROM_PYTHON, device as _device_cls, dtype as _dtype_cls, complex_of,
                     from_numpy_dtype)
from ._errors import LoomOverflowError, LoomTypeError, LoomValueError, raise_error
from ._tensor import Tensor, _new

# Arrays lent to C storages, by key; the storage's deleter drops the entry.
_lent = {}
_keys = itertools.count(1)


@ffi.def_extern()
def lm_py_release(ctx):
    _lent.pop(int(ffi.cast("intptr_t", ctx)), None)


def _lend(obj):
    """Keep obj alive until the tensor over its memory is freed: (deleter, ctx) for lm_from_blob."""
    key = next(_keys)
    _lent[key] = obj
    return lib.lm_py_release, ffi.cast("void *", key)


def from_numpy(a, _as=None):
    """A tensor sharing `a`'s memory: writes through either are seen by both. (_as: a loom dtype
    NumPy lacks whose bytes `a` holds, as unsigned integers of its width: bfloat16 from a file.)"""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"from_numpy(): expected np.ndarray (got {type(a).__name__})")
    if not a.dtype.isnative:
        raise TypeError("from_numpy(): arrays in non-native byte order are not supported")
    if _as is None and a.dtype.name in BY_NAME and BY_NAME[a.dtype.name].numpy is None:   # ml_dtypes' bfloat16
        _as, a = BY_NAME[a.dtype.name], a.view(BY_NAME[a.dtype.name].raw)
    dt = _as if _as is not None and _as.raw == a.dtype else from_numpy_dtype(a.dtype)
    if not a.flags.writeable:
        # read-only memory (np.frombuffer of bytes, say) would crash on an in-place op: copy it
        a = a.copy()
    item = a.itemsize
    if any(s < 0 for s in a.strides):
        raise ValueError("from_numpy(): at least one stride in the given numpy array is negative; "
                         "use array.copy() first")
    if any(s % item for s in a.strides):
        raise ValueError("from_numpy(): strides that are not a multiple of the element size are not supported")
    key = next(_keys)
    _lent[key] = a
    ptr = ffi.cast("void *", a.__array_interface__["data"][0])
    h = lib.lm_from_blob(ptr, a.ndim, list(a.shape), [s // item for s in a.strides], dt.code, lib.LM_CPU,
                         lib.lm_py_release, ffi.cast("void *", key))
    if not h:
        _lent.pop(key, None)
        raise_error("from_numpy")
    return _new(h)


class _Capsule:
    """A bare DLPack capsule (the protocol before __dlpack__) offered to NumPy, which takes
    only producers: NumPy reads the device from the capsule itself and refuses non-CPU ones."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


class _Writable:
    """An array's memory offered as writable: NumPy marks what it imports from an unversioned
    capsule read-only (that format has no flag for it), while producers such as PyTorch mean
    it to be shared both ways, as torch.from_dlpack shares it."""

    def __init__(self, a):
        self.a = a   # keeps the capsule's owner alive
        self.__array_interface__ = dict(a.__array_interface__, data=(a.__array_interface__["data"][0], False))


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of any DLPack producer on the CPU or a CUDA GPU (a PyTorch
    tensor, a NumPy, CuPy or JAX array, ...) or of a DLPack capsule."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor.detach()
    if type(ext_tensor).__name__ == "PyCapsule":
        if _dlpack_cuda.is_cuda_capsule(ext_tensor):
            return _dlpack_cuda.consume(ext_tensor, _lend)
        ext_tensor = _Capsule(ext_tensor)
    elif hasattr(ext_tensor, "__dlpack_device__") and ext_tensor.__dlpack_device__()[0] == _dlpack_cuda.KDL_CUDA:
        return _dlpack_cuda.consume(ext_tensor.__dlpack__(stream=None), _lend)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(f"from_dlpack(): expected an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(ext_tensor).__name__}")
    try:
        a = np.from_dlpack(ext_tensor)
    except (BufferError, TypeError, RuntimeError) as e:
        # a dtype NumPy lacks (bfloat16): loom reads the capsule itself (a fresh one from a producer)
        cap = ext_tensor.capsule if isinstance(ext_tensor, _Capsule) else ext_tensor.__dlpack__()
        if _dlpack_cuda.numpy_lacks(cap):
            return _dlpack_cuda.consume(cap, _lend)
        raise BufferError(f"from_dlpack(): {e}") from None
    if isinstance(ext_tensor, _Capsule) and not a.flags.writeable:
        a = np.asarray(_Writable(a))
    return from_numpy(a)


def _resolve_dtype(dtype, op="tensor"):
    if dtype is None or isinstance(dtype, _dtype_cls):
        return dtype
    if dtype in FROM_PYTHON:
        return FROM_PYTHON[dtype]
    raise TypeError(f"{op}(): argument 'dtype' must be loom.dtype, not {type(dtype).__name__}")


def _check_numbers_fit(arr, target):
    """Python numbers given an integer dtype must fit it, as in PyTorch (uint8 also takes -255..-1,
    as two's complement, and so do uint16 and uint32; uint64 takes no negative); NumPy would wrap them."""
    if target.kind not in "iu" or arr.size == 0 or arr.dtype.kind == "b":
        return
    info = np.iinfo(target)
    lo = int(info.min) if target.kind == "i" else 0 if target.itemsize == 8 else -int(info.max)
    if arr.dtype.kind == "f":
        ok = np.isfinite(arr).all() and arr.min() >= info.min and (arr.max() < 2.0 ** 63 if target == np.int64
                                                                    else arr.max() <= info.max)
    else:
        ok = int(arr.min()) >= lo and int(arr.max()) <= int(info.max)
    if not ok:
        raise LoomOverflowError(f"tensor(): value cannot be converted to type {np.dtype(target).name} without "
                                "overflow")


def _exact_uint64(data, arr, op):
    """Python ints past int64 beside smaller ones (NumPy holds them as float64, rounding them) or past
    uint64 (as objects), as uint64 exactly or refused; arr itself where there are floats among them."""
    exact = np.asarray(data, dtype=object)
    if not all(isinstance(v, (int, np.integer)) for v in exact.flat):
        return arr
    try:
        return exact.astype(np.uint64)
    except OverflowError:
        raise LoomOverflowError(f"{op}(): value cannot be converted to type uint64 without overflow") from None


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of `data` (nested lists, numbers, arrays, tensors)."""
    return _tensor(data, dtype, device, requires_grad, "tensor")


def _tensor(data, dtype, device, requires_grad, op):
    dtype = _resolve_dtype(dtype, op)
    if device is not None and not isinstance(device, (str, int, _device_cls)):   # not to()'s message, later
        raise TypeError(f"{op}(): argument 'device' must be loom.device, not {type(device).__name__}")
    if not isinstance(requires_grad, (bool, np.bool_)):
        raise TypeError(f"{op}(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}")
    if isinstance(data, Tensor):
        out = data.to(dtype or data.dtype, copy=True)
    else:
        if isinstance(data, np.ndarray):
            arr = data
        else:
            try:
                arr = np.asarray(data)
            except ValueError as e:
                raise ValueError(f"{op}(): could not build a tensor from this data ({e})") from None
            if dtype is None and arr.dtype == np.float64 and not isinstance(data, np.generic):
                arr = arr.astype(BY_CODE[lib.lm_get_default_dtype()].numpy)   # Python floats: the default dtype
            elif dtype is None and arr.dtype == np.complex128 and not isinstance(data, np.generic):
                arr = arr.astype(complex_of(BY_CODE[lib.lm_get_default_dtype()]).numpy)   # Python complex: ditto
            elif (dtype is None and arr.dtype == np.uint64 and arr.size and not isinstance(data, np.generic)
                  and int(arr.max()) >= 2 ** 63):
                # Python ints past int64, which NumPy holds as uint64: PyTorch's int64 has no room for them
                raise LoomValueError(f"{op}(): value {int(arr.max())} cannot be converted to int64 without overflow "
                                     "(pass dtype=loom.uint64)")
            elif dtype is not None and dtype.numpy == np.uint64 and arr.dtype in (np.float64, object):
                arr = _exact_uint64(data, arr, op)
        if arr.dtype.name in BY_NAME and BY_NAME[arr.dtype.name].numpy is None:   # ml_dtypes' bfloat16 array
            out = from_numpy(arr.copy(order="C"))
            return _finish(out.to(dtype) if dtype is not None else out, device, requires_grad)
        if arr.dtype == object or arr.dtype.kind not in "biufc":
            # PyTorch's RuntimeError, a TypeError too (LoomTypeError is both)
            raise LoomTypeError(f"{op}(): could not infer a dtype for data of type {type(data).__name__}")
        target = dtype.numpy if dtype is not None else from_numpy_dtype(arr.dtype).numpy
        if target is None:   # bfloat16 (NumPy has none): rounded from float32 by loom's cast
            target = np.dtype(np.float32)
        if dtype is not None and not isinstance(data, np.ndarray):
            _check_numbers_fit(arr, target)
        with np.errstate(over="ignore"):   # float64 data beyond float32 becomes inf, as in PyTorch
            out = from_numpy(np.array(arr, dtype=target, copy=True, order="C"))
        if dtype is not None and out.dtype is not dtype:
            out = out.to(dtype)
    return _finish(out, device, requires_grad)


def _finish(out, device, requires_grad):
    if device is not None:
        out = out.to(device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory with a NumPy array or Tensor when it can."""
    dtype = _resolve_dtype(dtype, "as_tensor")
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtype.numpy == data.dtype):
        try:
            return from_numpy(data)
        except (TypeError, ValueError):
            pass
    return _tensor(data, dtype, device, False, "as_tensor")


def is_tensor(obj):
    return isinstance(obj, Tensor)




def _reduce_tensor(self):
    if self.dtype.numpy is None:   # bfloat16: its values as float32 (exact), rebuilt in its dtype
        return (tensor, (self.float().numpy().copy(), self.dtype))
    return (tensor, (self.numpy().copy(),))


Tensor.__reduce__ = _reduce_tensor   # installed here, as _ops installs the methods: pickling rebuilds through tensor()
