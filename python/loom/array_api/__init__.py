"""loom.array_api: the Python Array API standard (2024.12) over loom's tensors, the way
array_api_compat.torch fronts torch. Arrays are loom.Tensor; functions use the standard's
spellings (axis=, keepdims=, concat, permute_dims, ...), its type promotion (no value-based
casting, a 0-d array promotes as any other, Python scalars take the array's dtype) and its
special cases. `Tensor.__array_namespace__()` returns this module, so code that dispatches on
it (SciPy, scikit-learn, array_api_compat.array_namespace) accepts loom tensors."""
import math as _math
import sys as _sys

from .._dtype import device as _device_cls
from .._tensor import Tensor
from . import fft, linalg
from ._creation import (arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like, linspace, meshgrid,
                        ones, ones_like, tril, triu, zeros, zeros_like)
from ._dtypes import (astype, bool, can_cast, complex64, complex128, finfo, float32, float64, iinfo, int8, int16,
                      int32, int64, isdtype, result_type, uint8)
from ._elementwise import (abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, bitwise_and, bitwise_invert,
                           bitwise_left_shift, bitwise_or, bitwise_right_shift, bitwise_xor, ceil, clip, conj,
                           copysign, cos, cosh, divide, equal, exp, expm1, floor, floor_divide, greater,
                           greater_equal, hypot, imag, isfinite, isinf, isnan, less, less_equal, log, log1p, log2,
                           log10, logaddexp, logical_and, logical_not, logical_or, logical_xor, maximum, minimum,
                           multiply, negative, nextafter, not_equal, positive, pow, real, reciprocal, remainder,
                           round, sign, signbit, sin, sinh, sqrt, square, subtract, tan, tanh, trunc)
from ._info import __array_namespace_info__
from ._manipulation import (broadcast_arrays, broadcast_to, concat, expand_dims, flip, moveaxis, permute_dims,
                            repeat, reshape, roll, squeeze, stack, tile, unstack)
from ._reductions import (all, any, count_nonzero, cumulative_prod, cumulative_sum, diff, max, mean, min, prod,
                          std, sum, var)
from ._searching import (argmax, argmin, argsort, nonzero, searchsorted, sort, take, take_along_axis, unique_all,
                         unique_counts, unique_inverse, unique_values, where)
from .linalg import matmul, matrix_transpose, tensordot, vecdot

__array_api_version__ = "2024.12"

e, pi, inf, nan = _math.e, _math.pi, _math.inf, _math.nan
newaxis = None


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to."""
    out = []
    for s in shapes:
        s = tuple(s)
        out = [1] * (len(s) - len(out)) + out
        s = (1,) * (len(out) - len(s)) + s
        for i, (a, b) in enumerate(zip(out, s)):
            if a != b and a != 1 and b != 1:
                raise ValueError(f"shapes {shapes} do not broadcast")
            out[i] = b if a == 1 else a
    return tuple(out)


def _array_namespace(self, /, *, api_version=None):
    if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
        raise ValueError(f"__array_namespace__(): unsupported api_version {api_version!r}")
    return _this


def _to_device(self, device, /, *, stream=None):
    if stream is not None:
        raise ValueError("to_device(): loom takes no stream")
    return self.to(device if isinstance(device, _device_cls) else _device_cls(device))


def _mT(self):
    return matrix_transpose(self)


def _complex(self):
    return complex(self.item())


def _shift(fn, reflected=False):
    def op(self, other):
        return fn(other, self) if reflected else fn(self, other)
    return op


Tensor.__array_namespace__ = _array_namespace
Tensor.__complex__ = _complex
if not hasattr(Tensor, "__pos__"):
    Tensor.__pos__ = positive
if not hasattr(Tensor, "__lshift__"):
    Tensor.__lshift__, Tensor.__rlshift__ = _shift(bitwise_left_shift), _shift(bitwise_left_shift, True)
    Tensor.__rshift__, Tensor.__rrshift__ = _shift(bitwise_right_shift), _shift(bitwise_right_shift, True)
Tensor.to_device = _to_device
if not hasattr(Tensor, "mT"):
    Tensor.mT = property(_mT)

_this = _sys.modules[__name__]

__all__ = [n for n in dir() if not n.startswith("_") and n not in ("Tensor",)] + ["__array_namespace_info__"]
