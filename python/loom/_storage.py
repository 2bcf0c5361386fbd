"""Tensor.untyped_storage() and Tensor.storage(): the memory a tensor shares with its views, as
PyTorch's UntypedStorage (bytes) and its deprecated TypedStorage (elements of one dtype). A storage
holds a flat tensor over all of that memory, which keeps it alive and does the reads and writes, so
a storage works on every device its tensors do. Code that asks whether two tensors share memory
(`a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`) and code that counts the
bytes a model holds are what these serve."""
import warnings

from ._dtype import BY_NAME, device as _device
from ._numpy import tensor as _tensor
from ._ops import empty as _empty
from ._tensor import Tensor

_UINT8 = BY_NAME["uint8"]
# PyTorch's legacy storage class names (torch.FloatStorage, ...), which TypedStorage.type() gives
_TYPED_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _flat(t, dtype):
    """A 1-D tensor of dtype over the whole of t's storage: t's first element reinterpreted, then
    stretched over the storage (as_strided checks the bounds against the storage)."""
    nbytes = t._h.storage.nbytes
    if nbytes < t.dtype.itemsize:   # an empty storage: none to share
        return _empty(0, dtype=dtype, device=t.device)
    first = t.detach().as_strided((1,), (1,), 0)
    return first.view(dtype).as_strided((nbytes // dtype.itemsize,), (1,), 0)


class _Storage:
    __slots__ = ("_t",)   # the flat tensor over the memory

    def data_ptr(self):
        return self._t.data_ptr()

    @property
    def device(self):
        return self._t.device

    @property
    def is_cuda(self):
        return self._t.is_cuda

    def is_pinned(self):
        return False

    def is_shared(self):
        return False

    def __len__(self):
        return self._t.shape[0]

    def size(self):
        return self._t.shape[0]

    def tolist(self):
        return self._t.tolist()

    def __iter__(self):
        return iter(self.tolist())

    def _index(self, idx):
        if isinstance(idx, bool) or not hasattr(type(idx), "__index__"):
            raise TypeError(f"can't index a {self._kind} with {type(idx).__name__}")
        i, n = idx.__index__(), len(self)
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for storage of size {n}")
        return i + n if i < 0 else i

    def __getitem__(self, idx):
        return self._t[self._index(idx)].item()

    def __setitem__(self, idx, value):
        self._t[self._index(idx)] = value

    def fill_(self, value):
        self._t.fill_(value)
        return self

    def copy_(self, source):
        if len(source) != len(self):
            raise RuntimeError(f"copy_(): the storages differ in size ({len(self)} and {len(source)})")
        self._t.copy_(source._t)
        return self

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[{self.type()}(device={self.device}) of size {len(self)}]".lstrip("\n")


class UntypedStorage(_Storage):
    """The bytes of a tensor's memory: UntypedStorage(n) allocates n bytes, UntypedStorage([1, 2])
    holds the given byte values; t.untyped_storage() is the memory of t and all its views."""
    __slots__ = ()
    _kind = "UntypedStorage"

    def __init__(self, arg=0, *, device=None):
        from_list = isinstance(arg, (list, tuple))
        if not from_list and (isinstance(arg, bool) or not hasattr(type(arg), "__index__")):
            raise TypeError(f"UntypedStorage(): expected a size or a list of bytes, not {type(arg).__name__}")
        dev = _device(device) if device is not None else _device("cpu")
        self._t = (_tensor(list(arg), dtype=_UINT8, device=dev) if from_list
                   else _empty(arg.__index__(), dtype=_UINT8, device=dev))

    @classmethod
    def _of(cls, t):
        s = object.__new__(cls)
        s._t = _flat(t, _UINT8)
        return s

    def nbytes(self):
        return len(self)

    def element_size(self):
        return 1

    def type(self):
        return "loom.UntypedStorage"

    def clone(self):
        return UntypedStorage._of(self._t.clone())

    def cpu(self):
        return self if not self.is_cuda else UntypedStorage._of(self._t.cpu())

    def cuda(self, device=None):
        return self if self.is_cuda else UntypedStorage._of(self._t.cuda(device))


class TypedStorage(_Storage):
    """t.storage(): t's memory as elements of t's dtype. PyTorch deprecates it for UntypedStorage,
    and so warns as PyTorch does."""
    __slots__ = ()
    _kind = "TypedStorage"

    @classmethod
    def _of(cls, t):
        s = object.__new__(cls)
        s._t = _flat(t, t.dtype)
        return s

    @property
    def dtype(self):
        return self._t.dtype

    def nbytes(self):
        return len(self) * self._t.dtype.itemsize

    def element_size(self):
        return self._t.dtype.itemsize

    def type(self):
        return f"loom.{_TYPED_NAMES.get(self._t.dtype.name, self._t.dtype.name.capitalize())}Storage"

    def untyped(self):
        return UntypedStorage._of(self._t)

    def clone(self):
        return TypedStorage._of(self._t.clone())


def untyped_storage(self):
    return UntypedStorage._of(self)


def storage(self):
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. To access UntypedStorage directly, use tensor.untyped_storage() instead of "
                  "tensor.storage()", UserWarning, stacklevel=2)
    return TypedStorage._of(self)


def install():
    Tensor.untyped_storage = untyped_storage
    Tensor.storage = storage
