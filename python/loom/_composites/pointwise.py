"""Composite ops of ops/pointwise.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/pointwise.yaml names it with
`composite: true`."""
import builtins as _b

from .. import _ops
from .._dtype import BY_NAME, float64
from .._errors import LoomIndexError   # an IndexError and a RuntimeError, as the kernels raise

_BAREBONES = tuple(BY_NAME[n] for n in ("uint16", "uint32", "uint64"))


def div_Tensor_mode(self, other, rounding_mode):
    if rounding_mode is None:
        return _ops.div(self, other)
    if rounding_mode == "floor":
        return _ops.floor_divide(self, other)
    if rounding_mode != "trunc":
        raise ValueError(f"expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    if _ops.result_type(self, other).is_floating_point:
        return _ops.trunc(_ops.div(self, other))
    return _ops.floor_divide(_ops.sub(self, _ops.fmod(self, other)), other)   # an exact multiple: floor is trunc


def square(self):
    s = self.to(_ops.result_type(self, 2))   # bools square as int64, as PyTorch's
    return s * s


def heaviside(self, values):
    # PyTorch refuses mixed dtypes rather than promoting, and has no derivative for it
    if self.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    _ops._check_no_requires_grad(self, "heaviside", "self")
    _ops._check_no_requires_grad(values, "heaviside", "values")
    return _ops.where(self == 0, values, (self > 0).to(self.dtype))


def float_power(self, exponent):
    return _ops.pow(self.to(float64), exponent.to(float64))


def true_divide(self, other):
    return _ops.div(self, other)


def rsub(self, other, alpha):
    return _ops.sub(other, self, alpha=alpha)


def lerp_Scalar(self, end, weight):
    if end.dtype != self.dtype:
        raise RuntimeError(f"expected dtype {self.dtype.name} for `end` but got dtype {end.dtype.name}")
    return self + weight * (end - self)


def lerp_Tensor(self, end, weight):
    for name, t in (("end", end), ("weight", weight)):
        if t.dtype != self.dtype:
            raise RuntimeError(f"expected dtype {self.dtype.name} for `{name}` but got dtype {t.dtype.name}")
    return self + weight * (end - self)


def addcmul(self, tensor1, tensor2, value):
    return self + value * (tensor1 * tensor2) if value != 1 else self + tensor1 * tensor2


def addcdiv(self, tensor1, tensor2, value):
    if not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
        raise RuntimeError("Integer division with addcdiv is no longer supported; use "
                           "(input + value * tensor1 / tensor2) for a true division")
    return self + value * (tensor1 / tensor2) if value != 1 else self + tensor1 / tensor2


def clamp_min(self, min):
    return _ops.clamp(self, min=min)


def clamp_max(self, max):
    return _ops.clamp(self, max=max)


def clamp_Tensor(self, min, max):
    if min is None and max is None:
        raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
    r = self if min is None else _ops.maximum(self, min)
    return r if max is None else _ops.minimum(r, max)


def clamp_min_Tensor(self, min):
    return _ops.maximum(self, min)


def clamp_max_Tensor(self, max):
    return _ops.minimum(self, max)


def round_decimals(self, decimals):
    if decimals == 0:
        return _ops.round(self)
    # as PyTorch: scale by 10^|d| in self's dtype, round half to even, scale back
    if decimals > 0:
        ten = 10.0 ** decimals
        return _ops.round(self * ten) / ten
    ten = 10.0 ** -decimals
    return _ops.round(self / ten) * ten


def count_nonzero(self, dim):
    if not dim and self.dtype in _BAREBONES:   # PyTorch counts over all dims in a loop they lack
        raise TypeError(f"not implemented for dtype {self.dtype.name}")
    return (self != 0).sum(dim)


def nansum(self, dim, keepdim, dtype):
    return _ops.where(_ops.isnan(self), 0, self).sum(dim, keepdim, dtype=dtype) if self.dtype.is_floating_point \
        else self.sum(dim, keepdim, dtype=dtype)


def nanmean(self, dim, keepdim, dtype):
    keep = _ops.logical_not(_ops.isnan(self))
    return _ops.where(keep, self, 0).sum(dim, keepdim, dtype=dtype) / keep.sum(dim, keepdim)


def aminmax(self, dim, keepdim):
    if self.numel() == 0 and (dim is None or self.ndim == 0 or self.shape[dim] == 0):
        raise RuntimeError("cannot compute aminmax over an empty dimension as the operation has no identity.")
    d = None if dim is None else [dim]
    if dim is None and keepdim:
        return _ops.aminmax_result(self.amin(d, True).reshape([1] * self.ndim), self.amax(d, True).reshape([1] * self.ndim))
    return _ops.aminmax_result(self.amin(d, keepdim), self.amax(d, keepdim))


def isclose(self, other, rtol, atol, equal_nan):
    if self.dtype != other.dtype:
        raise RuntimeError(f"{self.dtype.name} did not match {other.dtype.name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    if self.dtype.name == "bool":
        return self == other
    close = self == other
    if equal_nan and self.dtype.is_floating_point:
        close = _ops.logical_or(close, _ops.logical_and(_ops.isnan(self), _ops.isnan(other)))
    if self.dtype.is_floating_point or atol or rtol:
        # finite differences only: an infinity is close only to itself (the == above)
        diff = (self - other).abs() if self.dtype.is_floating_point else (self * 1.0 - other).abs()
        within = _ops.logical_and(_ops.isfinite(diff), diff <= atol + (rtol * other).abs())
        close = _ops.logical_or(close, within)
    return close.detach()


def diff(self, n, dim, prepend, append):
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if self.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if not -self.ndim <= dim < self.ndim:
        raise LoomIndexError(f"Dimension out of range (expected to be in range of [{-self.ndim}, {self.ndim - 1}], but got {dim})")
    dim %= self.ndim
    if prepend is not None or append is not None:
        parts = [t if t.ndim else t.expand([*self.shape[:dim], 1, *self.shape[dim + 1:]])
                 for t in (prepend, self, append) if t is not None]
        self = _ops.cat(parts, dim)
    for _ in range(n):
        m = self.shape[dim]
        if m == 0:
            break
        a, b = self.narrow(dim, 1, m - 1), self.narrow(dim, 0, m - 1)
        self = _ops.logical_xor(a, b) if self.dtype.name == "bool" else a - b
    return self


def outer(self, vec2):
    for name, v in (("self", self), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"Expected 1-D argument {name}, but got {v.ndim}-D")
    return self.unsqueeze(1) * vec2.unsqueeze(0)


def dot(self, tensor):
    if self.dtype != tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {self.dtype.name} and {tensor.dtype.name}")
    if self.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {tensor.ndim}D tensors")
    if self.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{self.shape[0]}] and src [{tensor.shape[0]}] to "
                           f"have the same number of elements, but got {self.shape[0]} and {tensor.shape[0]} elements respectively")
    return (self * tensor).sum(dtype=self.dtype if self.dtype.name != "bool" else None)


def vdot(self, other):
    return _ops.dot(self.conj(), other)   # conj: a no-op for a real tensor


def addmm(self, mat1, mat2, beta, alpha):
    p = _ops.mm(mat1, mat2)
    if p.dtype.category in ("integral", "bool"):   # PyTorch casts the scalars to an integer result's type
        alpha, beta = _b.int(alpha), _b.int(beta)
    p = p if alpha == 1 else p * alpha
    # beta = 0 ignores self entirely (NaN in it does not propagate), as PyTorch's
    return p if beta == 0 else p + (self if beta == 1 else self * beta)


def baddbmm(self, batch1, batch2, beta, alpha):
    p = _ops.bmm(batch1, batch2)
    if p.dtype.category in ("integral", "bool"):   # as addmm's
        alpha, beta = _b.int(alpha), _b.int(beta)
    p = p if alpha == 1 else p * alpha
    # beta = 0 ignores self entirely (NaN in it does not propagate), as PyTorch's
    return p if beta == 0 else p + (self if beta == 1 else self * beta)


def linalg_vector_norm(self, ord, dim, keepdim, dtype):
    x = self if dtype is None else self.to(dtype)
    if x.dtype.is_complex:   # a complex vector's norm is its moduli's (x * x is not |x|^2): real, as PyTorch's
        x = x.abs()
    if ord == 2:
        s = (x * x).sum(dim, keepdim)
        # sqrt's gradient is infinite at 0: the norm of a zero vector takes the root of 1 and drops it,
        # so its gradient is 0 there (PyTorch's norm_backward), at any order
        nz = s != 0
        return _ops.where(nz, _ops.where(nz, s, 1).sqrt(), 0)
    a = x.abs()
    if ord == 1:
        return a.sum(dim, keepdim)
    if ord == _b.float("inf"):
        return a.amax(dim, keepdim)
    if ord == -_b.float("inf"):
        return a.amin(dim, keepdim)
    if ord == 0:
        return (x != 0).sum(dim, keepdim).to(x.dtype)
    s = _ops.pow(a, ord).sum(dim, keepdim)
    nz = s != 0   # as ord 2: the root's infinite gradient at 0 is dropped
    return _ops.where(nz, _ops.pow(_ops.where(nz, s, 1), 1.0 / ord), 0)


def logit(self, eps):
    if not self.dtype.is_floating_point:
        self = self.to(_ops.result_type(self, 1.0))   # integers and bools give the default float
    x = self if eps is None else _ops.clamp(self, eps, 1 - eps)
    return _ops.log(x / (1 - x))
