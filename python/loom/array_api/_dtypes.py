"""The standard's data types, their promotion table (no value-based casting; Python scalars
take the array's dtype), isdtype, result_type, can_cast, finfo/iinfo and astype."""
import builtins

from .._dtype import BY_NAME, dtype as _dtype_cls
from .._dtype_info import finfo as _finfo, iinfo as _iinfo
from .._promotion import can_cast as _can_cast, promoted as _promoted
from .._tensor import Tensor

bool = BY_NAME["bool"]   # noqa: A001  (the standard's spelling)
uint8, int8, int16, int32, int64 = (BY_NAME[n] for n in ("uint8", "int8", "int16", "int32", "int64"))
float32, float64 = BY_NAME["float32"], BY_NAME["float64"]
complex64, complex128 = BY_NAME["complex64"], BY_NAME["complex128"]

BOOL = (bool,)
SIGNED = (int8, int16, int32, int64)
UNSIGNED = (uint8,)
INTEGRAL = UNSIGNED + SIGNED
REAL_FLOATING = (float32, float64)
COMPLEX = (complex64, complex128)
NUMERIC = INTEGRAL + REAL_FLOATING + COMPLEX
ALL = BOOL + NUMERIC

DEFAULT_FLOAT, DEFAULT_INT, DEFAULT_COMPLEX, DEFAULT_INDEX = float32, int64, complex64, int64

_KINDS = {
    "bool": BOOL,
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": INTEGRAL,
    "real floating": REAL_FLOATING,
    "complex floating": COMPLEX,
    "numeric": NUMERIC,
}


def isdtype(dtype, kind):
    """Whether dtype is of kind: a dtype, one of the standard's kind names, or a tuple of them."""
    if not isinstance(dtype, _dtype_cls):
        raise TypeError(f"isdtype(): expected a dtype, got {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _dtype_cls):
        return dtype is kind
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype(): unknown kind {kind!r}")
        return dtype in _KINDS[kind]
    raise TypeError(f"isdtype(): kind must be a dtype, a str or a tuple, not {type(kind).__name__}")


def _kind(d):
    if d is bool:
        return "b"
    if d in INTEGRAL:
        return "i"
    if d in REAL_FLOATING:
        return "f"
    if d in COMPLEX:
        return "c"
    return "?"


def promote(a, b):
    """The standard's promotion of two dtypes (mixed kinds promote as PyTorch's lattice)."""
    if a is b:
        return a
    return _promoted(a, b)


def scalar_dtype(s, other):
    """The dtype a Python scalar takes beside an array of dtype other (the standard's rule: the
    array's dtype; an int beside bool, a float beside an integer, a complex beside a real: the
    default of the scalar's kind, promoted with the array's)."""
    if isinstance(s, builtins.bool):
        return other if other is bool else promote(bool, other)
    if isinstance(s, int):
        return other if other is not bool else DEFAULT_INT
    if isinstance(s, float):
        return other if other in REAL_FLOATING or other in COMPLEX else DEFAULT_FLOAT
    if isinstance(s, complex):
        if other in COMPLEX:
            return other
        return complex128 if other is float64 else DEFAULT_COMPLEX
    raise TypeError(f"unsupported scalar type {type(s).__name__}")


def _dtype_of(x):
    if isinstance(x, _dtype_cls):
        return x
    if isinstance(x, Tensor):
        return x.dtype
    raise TypeError(f"result_type(): expected arrays, dtypes or Python scalars, got {type(x).__name__}")


def result_type(*arrays_and_dtypes):
    """The standard's result_type: arrays and dtypes promote by the table, Python scalars then
    take the result's dtype (an error where no array or dtype is given)."""
    others = [x for x in arrays_and_dtypes if not isinstance(x, (builtins.bool, int, float, complex))]
    scalars = [x for x in arrays_and_dtypes if isinstance(x, (builtins.bool, int, float, complex))]
    if not others:
        raise ValueError("result_type() needs at least one array or dtype")
    d = _dtype_of(others[0])
    for x in others[1:]:
        d = promote(d, _dtype_of(x))
    for s in scalars:
        d = scalar_dtype(s, d)
    return d


def can_cast(from_, to, /):
    """Whether from_ (a dtype or an array) casts to `to` by the standard's promotion rules."""
    f = _dtype_of(from_)
    if f is to:
        return True
    if f is bool:
        return True if to is bool else _can_cast(f, to)
    if _kind(f) == "c" and _kind(to) != "c":
        return False
    if _kind(f) == "f" and _kind(to) in "bi":
        return False
    if _kind(f) == "i" and _kind(to) == "b":
        return False
    try:
        return promote(f, to) is to
    except (KeyError, IndexError):
        return False


class _FInfo:
    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")

    def __init__(self, fi, d):
        self.bits, self.eps, self.max, self.min = fi.bits, float(fi.eps), float(fi.max), float(fi.min)
        self.smallest_normal, self.dtype = float(fi.tiny), d

    def __repr__(self):
        return f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, dtype={self.dtype})"


class _IInfo:
    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, ii, d):
        self.bits, self.max, self.min, self.dtype = ii.bits, int(ii.max), int(ii.min), d

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"


def finfo(type, /):   # noqa: A002
    """Machine limits of a floating dtype (a complex one gives its real component's)."""
    d = _dtype_of(type)
    real = {complex64: float32, complex128: float64}.get(d, d)
    return _FInfo(_finfo(real), real)


def iinfo(type, /):   # noqa: A002
    """Machine limits of an integer dtype."""
    d = _dtype_of(type)
    return _IInfo(_iinfo(d), d)


def astype(x, dtype, /, *, copy=True, device=None):
    """x converted to dtype (a new array unless copy=False and nothing changes)."""
    if device is not None and device != x.device:
        x = x.to(device)
    if not copy and x.dtype is dtype:
        return x
    if x.dtype in COMPLEX and dtype not in COMPLEX:
        if dtype is bool:
            return (x != 0)
        x = x.real
    return x.to(dtype, copy=True)
