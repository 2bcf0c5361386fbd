"""The standard's linalg extension over loom.linalg."""
from collections import namedtuple

from .. import _ops
from .. import linalg as _la
from ._creation import eye
from ._dtypes import BOOL, COMPLEX, INTEGRAL, finfo, int64
from ._elementwise import promote_args

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


def cholesky(x, /, *, upper=False):
    """The Cholesky factor (lower, or upper when upper) of symmetric positive-definite x."""
    return _la.cholesky(x, upper=upper)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along axis."""
    a, b = promote_args(x1, x2, "cross")
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError("cross(): axis must have size 3 in both arrays")
    a, b = _ops.broadcast_to(a, _bshape(a, b)), _ops.broadcast_to(b, _bshape(a, b))
    c = [_ops.select(a, axis, i) for i in range(3)], [_ops.select(b, axis, i) for i in range(3)]
    (a0, a1, a2), (b0, b1, b2) = c
    return _ops.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis)


def _bshape(a, b):
    n = max(a.ndim, b.ndim)
    sa, sb = (1,) * (n - a.ndim) + tuple(a.shape), (1,) * (n - b.ndim) + tuple(b.shape)
    return tuple(max(i, j) if min(i, j) != 0 else 0 for i, j in zip(sa, sb))


def _embed(x):
    """The real (2m, 2n) matrices [[Re, -Im], [Im, Re]] of complex (m, n) ones: their products,
    inverses and singular values are those of the complex matrices, written out."""
    re, im = _ops.real(x), _ops.imag(x)
    return _ops.cat([_ops.cat([re, -im], -1), _ops.cat([im, re], -1)], -2)


def _unembed(e, m, n):
    return _ops.complex(e[..., :m, :n].contiguous(), e[..., m:, :n].contiguous())


def det(x, /):
    """The determinant of each matrix."""
    return _la.det(x)


def diagonal(x, /, *, offset=0):
    """The offset-th diagonal of each matrix (the last two axes)."""
    return _ops.diagonal(x, offset, -2, -1)


def eigh(x, /):
    """The eigenvalues (ascending) and eigenvectors of each symmetric matrix."""
    w, v = _la.eigh(x)
    return EighResult(w, v)


def eigvalsh(x, /):
    """The eigenvalues (ascending) of each symmetric matrix."""
    return _la.eigvalsh(x)


def inv(x, /):
    """The inverse of each matrix."""
    if x.dtype in COMPLEX:
        n = x.shape[-1]
        return _unembed(_la.inv(_embed(x)), n, n)
    return _la.inv(x)


def matmul(x1, x2, /):
    """The matrix product, promoted by the standard's rules."""
    a, b = promote_args(x1, x2, "matmul")
    return _ops.matmul(a, b)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """A matrix norm over the last two axes."""
    if x.dtype in COMPLEX:
        if ord in (2, -2, "nuc"):
            s = svdvals(x)
            out = _ops.amax(s, -1) if ord == 2 else _ops.amin(s, -1) if ord == -2 else _ops.sum(s, dim=-1)
            return out.unsqueeze(-1).unsqueeze(-1) if keepdims else out
        x = _ops.abs(x)   # the other norms depend on the moduli only
    return _la.matrix_norm(x, ord=ord, dim=(-2, -1), keepdim=keepdims)


def matrix_power(x, n, /):
    """x multiplied by itself n times (the inverse's power for negative n)."""
    if x.dtype not in COMPLEX:
        return _la.matrix_power(x, n)
    if n < 0:
        x, n = inv(x), -n
    out = _ops.broadcast_to(eye(x.shape[-1], dtype=x.dtype), tuple(x.shape)).clone()   # loom.eye's complex is zeros
    while n:
        if n & 1:
            out = _ops.matmul(out, x)
        x, n = _ops.matmul(x, x), n >> 1
    return out


def matrix_rank(x, /, *, rtol=None):
    """The number of singular values above rtol times the largest."""
    if x.dtype not in COMPLEX:
        return _la.matrix_rank(x, rtol=rtol)
    s = svdvals(x)
    if rtol is None:
        rtol = max(x.shape[-2:]) * finfo(x.dtype).eps
    if not isinstance(rtol, (int, float)):
        rtol = rtol.unsqueeze(-1)
    tol = _ops.mul(_ops.amax(s, -1, keepdim=True), rtol) if s.shape[-1] else s
    return _ops.sum(_ops.gt(s, tol), dim=-1)


def matrix_transpose(x, /):
    """x with its last two axes swapped."""
    if x.ndim < 2:
        raise ValueError("matrix_transpose(): needs an array of two or more dimensions")
    return _ops.transpose(x, -1, -2)


def outer(x1, x2, /):
    """The outer product of two 1-d arrays."""
    a, b = promote_args(x1, x2, "outer")
    return _ops.outer(a, b)


def pinv(x, /, *, rtol=None):
    """The Moore-Penrose pseudo-inverse."""
    return _la.pinv(x, rtol=rtol)


def qr(x, /, *, mode="reduced"):
    """The QR decomposition ('reduced' or 'complete')."""
    q, r = _la.qr(x, mode=mode)
    return QRResult(q, r)


def slogdet(x, /):
    """The sign and the log of the absolute value of each determinant."""
    s, l = _la.slogdet(x)
    return SlogdetResult(s, l)


def solve(x1, x2, /):
    """The solution of x1 @ x = x2."""
    a, b = promote_args(x1, x2, "solve")
    if b.ndim == 1:
        return _la.solve(a, b.unsqueeze(-1)).squeeze(-1) if a.ndim == 2 else _la.solve(a, b)
    return _la.solve(a, b)


def svd(x, /, *, full_matrices=True):
    """The singular value decomposition U, S, Vh."""
    u, s, vh = _la.svd(x, full_matrices=full_matrices)
    return SVDResult(u, s, vh)


def svdvals(x, /):
    """The singular values, descending."""
    if x.dtype in COMPLEX:
        return _la.svdvals(_embed(x))[..., ::2].contiguous()   # each one appears twice
    return _la.svdvals(x)


def tensordot(x1, x2, /, *, axes=2):
    """The sum of products over axes."""
    a, b = promote_args(x1, x2, "tensordot")
    if isinstance(axes, int):
        if axes < 0 or axes > min(a.ndim, b.ndim):
            raise ValueError(f"tensordot(): axes={axes} out of range")
        axes = (list(range(a.ndim - axes, a.ndim)), list(range(axes)))
    return _ops.tensordot(a, b, list(axes[0]), list(axes[1]))


def trace(x, /, *, offset=0, dtype=None):
    """The sum of each matrix's offset-th diagonal."""
    d = _ops.diagonal(x, offset, -2, -1)
    if dtype is None:
        dtype = int64 if x.dtype in INTEGRAL or x.dtype in BOOL else x.dtype
    return _ops.sum(d.to(dtype), dim=-1)


def vecdot(x1, x2, /, *, axis=-1):
    """The dot product along axis (the first argument conjugated)."""
    a, b = promote_args(x1, x2, "vecdot")
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(f"vecdot(): axis {axis} has sizes {a.shape[axis]} and {b.shape[axis]}")
    if a.dtype in COMPLEX:
        a = _ops.conj_physical(a)
    return _ops.sum(_ops.mul(a, b), dim=axis, dtype=a.dtype)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """A vector norm over axis (all axes when None)."""
    if x.dtype in COMPLEX:
        x = _ops.abs(x)   # a vector norm depends on the moduli only
    if axis is None:
        out = _la.vector_norm(x.reshape(-1), ord=ord, dim=0)
        return out.reshape((1,) * x.ndim) if keepdims else out
    return _la.vector_norm(x, ord=ord, dim=axis, keepdim=keepdims)


