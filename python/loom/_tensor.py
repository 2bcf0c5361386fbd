"""The Tensor class: a handle to a C tensor plus Python conveniences.

Operators and most methods are attached by the generated `_ops` module."""
import numpy as np

from . import _autograd
from ._C import ffi, lib
from ._dims import wrap_dim
from ._dtype import (BY_CODE, BY_NAME, DEVICES, bool_, complex_of, device as _device, float32, float64,
                     int32, int64, uint8)

float16, bfloat16 = BY_NAME["float16"], BY_NAME["bfloat16"]
from ._errors import raise_error
from ._memory_format import code_of as _memory_format_code


class Size(tuple):
    """A tensor's shape: a tuple of ints, as torch.Size."""

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self):
        return f"loom.Size({list(self)})"


def _dim_arg(fname, dim):
    """dim as an int, or PyTorch's TypeError naming the method (this module sits below _args)"""
    if isinstance(dim, bool) or not hasattr(type(dim), "__index__"):
        raise TypeError(f"{fname}(): argument 'dim' must be int, not {type(dim).__name__}")
    return dim.__index__()


class Tensor(_autograd.TensorBase):
    # The C base holds _h (the handle, whose C reference its dealloc drops) and
    # _ag: autograd metadata, set only on GradTensor (and subclasses such as
    # nn.Parameter); plain tensors never read it.
    __slots__ = ()
    __array_priority__ = 1000   # ndarray + Tensor defers to Tensor.__radd__

    def __new__(cls, *args, device=None):
        """loom.Tensor(3, 4) (uninitialised, the default dtype), loom.Tensor([1, 2]) (a copy of the data
        as the default dtype), loom.Tensor(): PyTorch's legacy constructor (loom.tensor is the modern one)."""
        if cls is not Tensor:   # subclasses (nn.Parameter) fill in their own
            return _autograd.TensorBase.__new__(cls)
        return _legacy_construct[0](args, device=device)

    def __init__(self, *args, **kwargs):
        pass   # __new__ made it

    @property
    def data(self):
        """The tensor's memory as a tensor outside autograd (requires_grad False), as PyTorch's .data."""
        return self.detach()

    @data.setter
    def data(self, new):
        """t.data = new: t holds new's memory from now on, keeping its identity, .grad and hooks."""
        if not isinstance(new, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(new).__name__}")
        lib.lm_retain(new._h)
        old, self._h = self._h, new._h
        lib.lm_release(old)

    # device predicates device-agnostic scripts test (loom has CPU and CUDA tensors only)
    is_xpu = is_mps = is_meta = is_sparse = is_quantized = is_mkldnn = property(lambda self: False)

    # ---- metadata, read straight from the C struct ----
    @property
    def shape(self):
        h = self._h
        return Size(ffi.unpack(h.shape, h.ndim))

    def size(self, dim=None):
        shape = self.shape
        if dim is None:
            return shape
        return shape[wrap_dim(dim if dim.__class__ is int else _dim_arg("size", dim), len(shape))]

    def stride(self, dim=None):
        h = self._h
        st = tuple(ffi.unpack(h.strides, h.ndim))
        if dim is None:
            return st
        return st[wrap_dim(dim if dim.__class__ is int else _dim_arg("stride", dim), len(st))]

    @property
    def dtype(self):
        return BY_CODE[self._h.dtype]

    @property
    def device(self):
        return DEVICES[self._h.device]

    @property
    def ndim(self):
        return self._h.ndim

    def dim(self):
        return self._h.ndim

    def numel(self):
        return lib.lm_numel(self._h)

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def is_contiguous(self, memory_format=None):
        """C-contiguous, or laid out as memory_format (loom.channels_last, ...) where given."""
        if memory_format is None:
            return bool(lib.lm_is_contiguous(self._h))
        has = lib.lm_has_memory_format(self._h, _memory_format_code(memory_format, "is_contiguous", "memory_format"))
        if has < 0:
            raise_error("is_contiguous")
        return bool(has)

    def data_ptr(self):
        return lib.lm_data_address(self._h)

    def storage_offset(self):
        return self._h.offset

    @property
    def is_cuda(self):
        return self._h.device == lib.LM_CUDA

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_conj(self):
        return False   # loom's conjugates are computed (conj_physical), never a lazy bit

    # ---- Python values ----
    def item(self):
        s = ffi.new("lm_scalar *")
        if lib.lm_item(self._h, s):
            raise_error("item")
        k = s.kind   # lm_scalar: 4 is uint64's upper half, its bits in i
        return bool(s.i) if k == 0 else s.i if k == 1 else s.d if k == 2 else s.i + 2 ** 64 if k == 4 else complex(s.d, s.im)

    def tolist(self):
        t = self.cpu()
        return (t.float() if t.dtype.numpy is None else t).numpy().tolist()

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self.numel()} values is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype.name == "bool" or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return self.item()

    def __len__(self):
        if self._h.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._h.shape[0]

    def __iter__(self):
        if self._h.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._h.shape[0]))

    __hash__ = object.__hash__

    def __contains__(self, element):
        if not isinstance(element, (Tensor, int, float, bool)):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                               f"{type(element).__name__}.")
        return bool((self == element).any().item())

    # ---- NumPy: zero-copy both ways ----
    def _interface(self, raw=False):
        """The array interface dict (version 3) over this tensor's memory, wherever it is (raw: as
        the unsigned integers holding a dtype NumPy lacks, bfloat16)."""
        h, dt = self._h, BY_CODE[self._h.dtype]
        if dt.numpy is None and not raw:
            raise TypeError(f"Got unsupported ScalarType {dt.scalar_type}")
        item = dt.itemsize
        return {
            "version": 3,
            "shape": tuple(ffi.unpack(h.shape, h.ndim)),
            "typestr": dt.raw_typestr if raw else dt.typestr,
            "data": (lib.lm_data_address(h), False),
            # None (C order, NumPy's cheapest case) only where it says exactly the tensor's strides
            "strides": None if h.ndim == 0 or h.ndim == 1 and h.strides[0] == 1 else
            tuple(s * item for s in ffi.unpack(h.strides, h.ndim)),
        }

    @property
    def __array_interface__(self):
        if self._h.device != lib.LM_CPU:
            raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
                            "tensor to host memory first.")
        return self._interface()

    @property
    def __cuda_array_interface__(self):
        """Zero-copy exchange with CuPy, Numba, PyTorch (torch.as_tensor) on the GPU."""
        if self._h.device != lib.LM_CUDA:
            raise AttributeError("__cuda_array_interface__ is only defined for CUDA tensors")
        if self.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        return dict(self._interface(), stream=1)   # loom's work runs on the legacy default stream

    def numpy(self):
        """A NumPy array sharing this tensor's memory (bfloat16: ml_dtypes.bfloat16, when installed)."""
        if self.dtype.numpy is None and self._h.device == lib.LM_CPU:
            return np.asarray(_RawView(self)).view(_numpy_extension_dtype(self.dtype))
        return np.asarray(self)

    # ---- DLPack: zero-copy exchange with PyTorch, JAX, CuPy, ... (NumPy's implementation, as
    # loom's CPU memory already is a NumPy array's) ----
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if self.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        if self._h.device != lib.LM_CPU or self.dtype.numpy is None:   # CUDA, bfloat16: loom's own capsule
            if dl_device is not None and tuple(dl_device) != self.__dlpack_device__() or copy:
                raise BufferError("__dlpack__: this tensor is exported in place, on its device")
            return _export_cuda[0](self)
        kwargs = {"stream": stream, "dl_device": dl_device, "copy": copy}
        if max_version is not None:
            kwargs["max_version"] = max_version
        return self.numpy().__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0) if self._h.device == lib.LM_CPU else (2, 0)   # kDLCPU / kDLCUDA

    def __format__(self, spec):
        """f"{t:.4f}" formats a one-element tensor's value, as PyTorch does for 0-d tensors; an empty
        spec is the repr."""
        if not spec:
            return repr(self)
        if self.ndim == 0:
            return format(self.item(), spec)
        raise TypeError(f"unsupported format string passed to Tensor.__format__ (a {self.ndim}-d tensor)")

    def __repr__(self):
        a = self.cpu()
        a = (a.float() if a.dtype.numpy is None else a).numpy()   # bfloat16: shown through float32
        fmt = {"bool": lambda b: "True" if b else "False"}
        if a.dtype.kind in "fc" and a.size:
            parts = np.concatenate([a.real.ravel(), a.imag.ravel()]) if a.dtype.kind == "c" else a
            finite = parts[np.isfinite(parts)].astype(np.float64)   # (float16 would overflow at 1e8)
            big = finite.size and (np.abs(finite).max() >= 1e8 or 0 < np.abs(finite[finite != 0]).min(initial=1) < 1e-4)
            if finite.size and not big and not np.all(finite == np.round(finite)):
                fmt["float_kind"] = lambda x: f"{x:.4f}"   # as PyTorch: fixed 4 decimals unless all whole
                fmt["complex_kind"] = lambda z: f"{z.real:.4f}{z.imag:+.4f}j"
        body = np.array2string(a, separator=", ", prefix="tensor(", threshold=1000, edgeitems=3, formatter=fmt)
        default = BY_CODE[lib.lm_get_default_dtype()]   # as PyTorch: the default float (and complex) go unsaid
        default, cdefault = default.name, complex_of(default).name
        extra = "" if self.dtype.name in (default, cdefault, "int64", "bool") else f", dtype=loom.{self.dtype.name}"
        if a.size == 0:   # as PyTorch: an empty tensor's dtype is shown unless the default, its size unless 1-D
            extra = (f", size={tuple(a.shape)}" if a.ndim != 1 else "") + \
                ("" if self.dtype.name == default else f", dtype=loom.{self.dtype.name}")
        if self._h.device != lib.LM_CPU:
            extra += f", device='{self.device}'"
        meta = getattr(self, "_ag", None)
        if meta is not None and meta.grad_fn is not None:
            extra += f", grad_fn=<{meta.grad_fn.name()}>"
        elif meta is not None and meta.requires_grad:
            extra += ", requires_grad=True"
        return f"tensor({body}{extra})"

    # ---- conveniences over generated ops ----
    def float(self):
        return self.to(float32)

    def double(self):
        return self.to(float64)

    def half(self):
        return self.to(float16)

    def bfloat16(self):
        return self.to(bfloat16)

    def long(self):
        return self.to(int64)

    def int(self):
        return self.to(int32)

    def bool(self):
        return self.to(bool_)

    def byte(self):
        return self.to(uint8)

    def char(self):
        return self.to(BY_NAME["int8"])

    def short(self):
        return self.to(BY_NAME["int16"])

    def cfloat(self):
        return self.to(BY_NAME["complex64"])

    def cdouble(self):
        return self.to(BY_NAME["complex128"])

    def type_as(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"type_as(): argument 'other' must be Tensor, not {type(other).__name__}")
        return self.to(other.dtype)

    def cpu(self):
        return self if self._h.device == lib.LM_CPU else self.to("cpu")

    def pin_memory(self, device=None):
        """A copy in page-locked host memory (faster copies to and from the GPU); self if already."""
        if self.is_pinned():
            return self
        _lazy_cuda[0]()
        h = lib.lm_pin_memory(self._h)
        if not h:
            raise_error("pin_memory")
        return _new(h)

    def is_pinned(self, device=None):
        if device is not None and not isinstance(device, (int, str, _device)):
            raise TypeError(f"is_pinned(): argument 'device' (position 1) must be loom.device, "
                            f"not {type(device).__name__}")
        return bool(lib.lm_is_pinned(self._h))

    def cuda(self, device=None, non_blocking=False):
        if device is not None and not isinstance(device, (int, str, _device)):
            raise TypeError(f"cuda(): argument 'device' (position 1) must be loom.device, not {type(device).__name__}")
        if type(non_blocking).__name__ != "bool":
            raise TypeError(f"cuda(): argument 'non_blocking' (position 2) must be bool, "
                            f"not {type(non_blocking).__name__}")
        if isinstance(device, int):
            device = f"cuda:{device}"
        return self.to("cuda" if device is None else device, non_blocking=non_blocking)

    @property
    def T(self):
        return self.permute(tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    @property
    def mH(self):
        return self.transpose(-2, -1).conj()

    @property
    def H(self):
        return self.permute(tuple(range(self.ndim - 1, -1, -1))).conj()


class _RawView:
    """A tensor's memory as NumPy sees it, a dtype NumPy lacks as the unsigned integers holding it."""

    def __init__(self, t):
        if t.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        self.t, self.__array_interface__ = t, t._interface(raw=True)


def _numpy_extension_dtype(dt):
    """NumPy's dtype for a loom dtype NumPy itself lacks: ml_dtypes' (bfloat16), or torch's TypeError
    naming the package that would provide it."""
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(f"Got unsupported ScalarType {dt.scalar_type}: NumPy has no {dt.name}; install "
                        f"ml_dtypes (pip install ml_dtypes) for numpy() of {dt.name} tensors, or use "
                        ".float().numpy()") from None
    return np.dtype(getattr(ml_dtypes, dt.name))


# loom._dlpack_cuda's exporter of CUDA tensors and loom.cuda's loader (they import this module,
# so they register themselves)
_export_cuda = [None]
_legacy_construct = [None]   # loom._legacy.construct
_lazy_cuda = [None]


class GradTensor(Tensor):
    """A Tensor taking part in autograd. Generated op functions test
    `x.__class__ is Tensor` to convert arguments; the same test tells them no
    graph needs recording, so plain tensors pay nothing for autograd."""
    __slots__ = ()


_object_new = _autograd.TensorBase.__new__   # the C base's: a Tensor with no handle yet


def _new(h):
    """Wrap a new C reference (TensorBase's dealloc releases it)."""
    t = _object_new(Tensor)
    t._h = h
    return t
