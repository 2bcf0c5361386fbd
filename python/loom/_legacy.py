"""PyTorch's legacy tensor constructors and types, which old and new scripts alike still use:
loom.Tensor(3, 4) / loom.Tensor([1, 2]), the typed constructors FloatTensor, LongTensor, ... (also
isinstance targets: isinstance(t, loom.LongTensor) is t.dtype == int64 on the CPU), and
Tensor.type(). They make tensors through loom.empty / loom.tensor."""
import numbers

from . import _ops, _tensor
from ._dtype import BY_CODE, BY_NAME, dtype as _dtype_cls
from ._numpy import tensor
from ._runtime import get_default_dtype
from ._tensor import Size, Tensor

# the legacy type names, as torch.FloatTensor etc. name them: PyTorch's ScalarType name + "Tensor"
_NAMES = {d.name: f"{d.scalar_type}Tensor" for d in BY_CODE}
_BY_LEGACY = {v: k for k, v in _NAMES.items()}


def construct(args, dtype=None, device=None, who="Tensor"):
    """What loom.Tensor(...) / loom.FloatTensor(...) make: sizes give an uninitialised tensor, data (a
    sequence, an array, a number sequence) a copy in dtype, a Tensor of that dtype itself."""
    dt = get_default_dtype() if dtype is None else dtype
    if not args:
        return _ops.empty(0, dtype=dt, device=device)
    if len(args) == 1 and isinstance(args[0], Size) or all(
            isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
        sizes = tuple(args[0]) if isinstance(args[0], Size) else args
        return _ops.empty(sizes, dtype=dt, device=device)
    if len(args) > 1:
        raise TypeError(f"{who}(): expected sizes (ints) or one sequence of data, got {len(args)} arguments")
    data = args[0]
    if isinstance(data, Tensor):
        if data.dtype != dt:
            raise TypeError(f"{who}(): expected a tensor of type {dt.name}, got {data.dtype.name}")
        return data
    if isinstance(data, numbers.Number):
        raise TypeError(f"{who}(): new(): data must be a sequence (got {type(data).__name__})")
    return tensor(data, dtype=dt, device=device)


_tensor._legacy_construct[0] = construct   # loom.Tensor(...) comes here


class _LegacyType(type):
    """A typed constructor that is also an isinstance target, as torch.FloatTensor is."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args, device=None):
        return construct(args, cls.dtype, device, cls.__name__)

    def __repr__(cls):
        return f"<class 'loom.{cls.__name__}'>"


TYPES = {name: _LegacyType(name, (), {"dtype": BY_NAME[dt], "__doc__": f"{dt} tensors: loom.{name}(3, 4) or "
                                      f"loom.{name}([1, 2]), and isinstance(t, loom.{name})"})
         for dt, name in _NAMES.items()}


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """t.type(): the legacy type name ('loom.FloatTensor'); t.type(dtype or name): t converted to it."""
    if type(non_blocking).__name__ != "bool":
        raise TypeError(f"type(): argument 'non_blocking' must be bool, not {type(non_blocking).__name__}")
    if dtype is None:
        cuda = ".cuda" if self.device.type == "cuda" else ""
        return f"loom{cuda}.{_NAMES[self.dtype.name]}"
    device = None
    if isinstance(dtype, str):   # 'torch.FloatTensor', 'loom.cuda.LongTensor', 'FloatTensor'
        parts = dtype.split(".")
        if parts[-1] not in _BY_LEGACY:
            raise ValueError(f"invalid type: '{dtype}'")
        device = "cuda" if "cuda" in parts[:-1] else "cpu"
        dtype = BY_NAME[_BY_LEGACY[parts[-1]]]
    elif isinstance(dtype, _LegacyType):
        dtype, device = dtype.dtype, "cpu"
    elif not isinstance(dtype, _dtype_cls):
        raise TypeError(f"type(): argument 'dtype' must be a loom.dtype or a type name, not {type(dtype).__name__}")
    r = self.to(dtype, non_blocking=non_blocking)
    return r if device is None or r.device.type == device else r.to(device)
