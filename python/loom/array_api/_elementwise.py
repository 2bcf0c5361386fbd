"""The standard's element-wise functions over loom's ops: two-argument functions promote by the
standard's table (a 0-d array counts as any other; Python scalars take the array's dtype), and
the few spellings and special cases where loom's op differs are written out here."""
import builtins

from .. import _ops
from .._tensor import Tensor
from ._dtypes import BOOL, COMPLEX, INTEGRAL, REAL_FLOATING, UNSIGNED, promote, scalar_dtype

_SCALARS = (builtins.bool, int, float, complex)


def _as_array(s, dtype, like):
    return _ops.full((), s, dtype=dtype, device=like.device)


def promote_args(x1, x2, name):
    """x1 and x2 as arrays of their common dtype (the standard's promotion)."""
    s1, s2 = isinstance(x1, _SCALARS), isinstance(x2, _SCALARS)
    if s1 and s2:
        raise TypeError(f"{name}(): at least one argument must be an array")
    if s1:
        d = scalar_dtype(x1, x2.dtype)
        return _as_array(x1, d, x2), (x2 if x2.dtype is d else x2.to(d))
    if s2:
        d = scalar_dtype(x2, x1.dtype)
        return (x1 if x1.dtype is d else x1.to(d)), _as_array(x2, d, x1)
    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        raise TypeError(f"{name}(): expected arrays, got {type(x1).__name__} and {type(x2).__name__}")
    d = promote(x1.dtype, x2.dtype)
    return (x1 if x1.dtype is d else x1.to(d)), (x2 if x2.dtype is d else x2.to(d))


def _binary(op, name):
    def f(x1, x2, /):
        a, b = promote_args(x1, x2, name)
        return op(a, b)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"The standard's {name}(x1, x2): element-wise, with its type promotion."
    return f


def _unary(op, name):
    def f(x, /):
        return op(x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"The standard's {name}(x): element-wise."
    return f


for _name, _op in [("acos", _ops.acos), ("acosh", _ops.acosh), ("asin", _ops.asin), ("asinh", _ops.asinh),
                   ("atan", _ops.atan), ("atanh", _ops.atanh), ("cos", _ops.cos), ("cosh", _ops.cosh),
                   ("exp", _ops.exp), ("isfinite", _ops.isfinite),
                   ("isinf", _ops.isinf), ("isnan", _ops.isnan), ("log", _ops.log),
                   ("log2", _ops.log2), ("log10", _ops.log10), ("logical_not", _ops.logical_not),
                   ("negative", _ops.neg), ("sin", _ops.sin), ("sinh", _ops.sinh), ("sqrt", _ops.sqrt),
                   ("tan", _ops.tan), ("tanh", _ops.tanh), ("bitwise_invert", _ops.bitwise_not),
                   ("reciprocal", _ops.reciprocal)]:
    globals()[_name] = _unary(_op, _name)

for _name, _op in [("add", _ops.add), ("atan2", _ops.atan2), ("bitwise_and", _ops.bitwise_and),
                   ("bitwise_or", _ops.bitwise_or), ("bitwise_xor", _ops.bitwise_xor),
                   ("copysign", _ops.copysign), ("divide", _ops.true_divide), ("equal", _ops.eq),
                   ("greater", _ops.gt), ("greater_equal", _ops.ge), ("hypot", _ops.hypot), ("less", _ops.lt),
                   ("less_equal", _ops.le), ("logaddexp", _ops.logaddexp), ("logical_and", _ops.logical_and),
                   ("logical_or", _ops.logical_or), ("logical_xor", _ops.logical_xor),
                   ("maximum", _ops.maximum), ("minimum", _ops.minimum), ("multiply", _ops.mul),
                   ("nextafter", _ops.nextafter), ("not_equal", _ops.ne), ("subtract", _ops.sub)]:
    globals()[_name] = _binary(_op, _name)


def _floor_divide(a, b):
    r = _ops.floor_divide(a, b)
    if a.dtype not in REAL_FLOATING:
        return r   # integer division by zero raises, as Python's
    # one infinite operand: the standard's floor(x1 / x2) (inf // 2 is inf, 1 // -inf is -0)
    one_inf = _ops.logical_xor(_ops.isinf(a), _ops.isinf(b))
    return _ops.where(_ops.logical_and(one_inf, _ops.logical_not(_ops.isnan(_ops.add(a, b)))),
                      _ops.floor(_ops.true_divide(a, b)), r)


def _remainder(a, b):
    r = _ops.remainder(a, b)
    if a.dtype not in REAL_FLOATING:
        return r
    # a zero result takes the divisor's sign (remainder(-0, 1) is +0, remainder(+0, -1) is -0)
    return _ops.where(_ops.eq(r, 0), _ops.copysign(r, b), r)


floor_divide = _binary(_floor_divide, "floor_divide")
remainder = _binary(_remainder, "remainder")
pow = _binary(_ops.pow, "pow")   # noqa: A001


def _pow2(y):
    return _ops.pow(_ops.full((), 2, dtype=y.dtype, device=y.device), y)


def _shift_left(a, b):
    return _ops.mul(a, _pow2(b))


def _shift_right(a, b):
    bits = a.dtype.itemsize * 8
    big = _ops.ge(b, bits)
    b = _ops.clamp(b, 0, bits - 1)   # a signed x >> (bits or more) is x >> (bits - 1): 0 or -1
    h = _ops.floor_divide(b, _ops.full((), 2, dtype=b.dtype, device=b.device))
    out = _ops.floor_divide(_ops.floor_divide(a, _pow2(h)), _pow2(_ops.sub(b, h)))
    if a.dtype in UNSIGNED:
        out = _ops.where(big, _ops.zeros_like(out), out)
    return out


bitwise_left_shift = _binary(_shift_left, "bitwise_left_shift")
bitwise_right_shift = _binary(_shift_right, "bitwise_right_shift")


def expm1(x, /):
    """exp(x) - 1, accurate near 0; a complex x with an infinite or NaN component follows exp's
    special cases (exp(x) - 1), and +-0 + 0j gives +0 + 0j."""
    if x.dtype not in COMPLEX:
        return _ops.expm1(x)
    out = _ops.where(_ops.isfinite(x), _ops.expm1(x), _ops.sub(_ops.exp(x), 1))
    zero = _ops.complex(_ops.zeros_like(_ops.real(x)), _ops.imag(x))
    return _ops.where(_ops.eq(x, 0), zero, out)


def log1p(x, /):
    """log(1 + x), accurate near 0; a complex x with an infinite or NaN component gives log(1 + x)."""
    if x.dtype not in COMPLEX:
        return _ops.log1p(x)
    return _ops.where(_ops.isfinite(x), _ops.log1p(x), _ops.log(_ops.add(x, 1)))


def abs(x, /):   # noqa: A001
    """|x| (a complex x gives its real modulus)."""
    return _ops.abs(x)


def positive(x, /):
    """+x: a copy of x."""
    return _ops.clone(x)


def conj(x, /):
    """The complex conjugate (x itself, copied, for a real x)."""
    return _ops.conj_physical(x) if x.dtype in COMPLEX else _ops.clone(x)


def real(x, /):
    """The real component (a real x is returned as a copy)."""
    return _ops.real(x).clone() if x.dtype in COMPLEX else _ops.clone(x)


def imag(x, /):
    """The imaginary component (zeros for a real x)."""
    return _ops.imag(x).clone() if x.dtype in COMPLEX else _ops.zeros_like(x)


def _rounding(op, name):
    def f(x, /):
        if x.dtype in INTEGRAL or x.dtype in BOOL:
            return _ops.clone(x)
        return op(x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"The standard's {name}(x): an integer x is returned unchanged."
    return f


ceil = _rounding(_ops.ceil, "ceil")
floor = _rounding(_ops.floor, "floor")
trunc = _rounding(_ops.trunc, "trunc")
round = _rounding(_ops.round, "round")   # noqa: A001


def sign(x, /):
    """-1, 0 or 1 (NaN for NaN); x / |x| for a complex x (0 for 0)."""
    if x.dtype in COMPLEX:
        return _ops.sgn(x)
    if x.dtype in UNSIGNED:
        return (x != 0).to(x.dtype)
    return _ops.sign(x)


def signbit(x, /):
    """Whether x's sign bit is set (-0.0 and -NaN included)."""
    return _ops.signbit(x)


def square(x, /):
    """x * x."""
    return _ops.mul(x, x)


def clip(x, /, min=None, max=None):   # noqa: A002
    """x limited to [min, max] (either bound may be None, a scalar or an array); the result has
    x's dtype and NaN propagates."""
    out = x
    if min is not None:
        lo = (min if isinstance(min, Tensor) else _as_array(min, x.dtype, x)).to(x.dtype)
        out = _ops.where(_ops.lt(out, lo), lo, out)
    if max is not None:
        hi = (max if isinstance(max, Tensor) else _as_array(max, x.dtype, x)).to(x.dtype)
        out = _ops.where(_ops.gt(out, hi), hi, out)
    if out is x:
        return _ops.clone(x)
    if x.dtype in REAL_FLOATING:
        out = _ops.where(_ops.isnan(x), x, out)
    return out



