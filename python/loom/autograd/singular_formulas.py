"""Backward formulas at the points where the textbook formula divides by zero (a product with
a zero factor, pow at 0, atan2 at the origin): PyTorch's values there, not NaN."""
from .. import _ops as lm


def _conj(x):   # complex operands pass the conjugate derivative back (derivatives/complex.yaml)
    return lm.conj_physical(x) if isinstance(x, lm.Tensor) and x.dtype.is_complex else x


def _reduced(dim, ndim):
    dims = list(range(ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    return sorted(d % ndim for d in dims) if dims else list(range(ndim))


def _spread(t, shape, dims, keepdim):
    """A reduction's result (or gradient) broadcast back over the reduced dims."""
    if not keepdim:
        for d in dims:
            t = t.unsqueeze(d)
    return t.expand(tuple(shape))


def prod_backward(grad, self, result, dim, keepdim):
    """d prod / d x_i = the product of the others. Without zeros that is result / x_i; with
    zeros it is built from running products before and after i along the reduced elements."""
    if self.ndim == 0:
        return grad
    dims = _reduced(dim, self.ndim)
    g = _spread(grad, self.shape, dims, keepdim)
    if not bool((self == 0).any()):
        return g * _conj(_spread(result, self.shape, dims, keepdim) / self)
    kept = [d for d in range(self.ndim) if d not in dims]
    order = kept + dims
    x = self.permute(order)
    lead = list(x.shape[:len(kept)])
    flat = x.reshape(lead + [-1])
    ones = lm.ones(lead + [1], dtype=self.dtype, device=self.device)
    before = lm.cat([ones, flat[..., :-1]], -1).cumprod(-1)
    after = lm.cat([ones, flat.flip([-1])[..., :-1]], -1).cumprod(-1).flip([-1])
    others = (before * after).reshape(list(x.shape))
    inverse = [0] * self.ndim
    for i, d in enumerate(order):
        inverse[d] = i
    return g * _conj(others.permute(inverse))


def pow_self_backward(grad, self, exponent):
    """exponent * self ** (exponent - 1), 0 where the exponent is 0 (PyTorch's, at 0 ** 0 too)."""
    return lm.where(exponent == 0, 0.0, grad * _conj(exponent * lm.pow(self, exponent - 1)))


def pow_exponent_backward(grad, self, exponent, result):
    """result * log(self), 0 where self is 0 and the exponent is not negative (PyTorch's)."""
    if self.dtype.is_complex or (isinstance(exponent, lm.Tensor) and exponent.dtype.is_complex):
        return grad * _conj(result * lm.log(self))   # (no ordering of complex exponents: no special point)
    skip = (self == 0) & (exponent >= 0)
    return lm.where(skip, 0.0, grad * result * lm.log(lm.where(skip, 1.0, self)))


def atan2_backward(grad, self, other):
    """(d self, d other) of atan2(self, other); 0 at the origin, where the radius squared is 0."""
    r2 = self * self + other * other
    zero = r2 == 0
    inv = lm.where(zero, 0.0, 1.0 / lm.where(zero, 1.0, r2))
    return grad * other * inv, -grad * self * inv
