"""torch.linalg's functions that need no LAPACK of their own: they compose the
decompositions of _linalg_api and loom's ops, so autograd goes through those."""
import builtins as _b
import math as _math
from collections import namedtuple

from ._args import takes_tensors, _check_tensor_list
from . import _ops
from ._linalg_api import _H, _check_float, svd, svdvals, solve, inv

__all__ = ["lstsq", "pinv", "pinverse", "matrix_rank", "matrix_exp", "multi_dot", "cond"]

Lstsq = namedtuple("lstsq", ["solution", "residuals", "rank", "singular_values"])


@takes_tensors("A")
def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse from the SVD, singular values below max(atol, rtol * s_max) dropped."""
    _check_float(A, "linalg.pinv")
    U, S, Vh = svd(A, full_matrices=False)
    tol = _tolerance(A, S, atol, rtol)
    keep = S > tol
    Sinv = _ops.where(keep, 1.0 / _ops.where(keep, S, 1.0), 0.0)
    return _H(Vh) @ (Sinv.unsqueeze(-1) * _H(U))


def _tolerance(A, S, atol, rtol):
    smax = S.amax([-1], keepdim=True) if S.shape[-1] else \
        _ops.zeros(list(S.shape[:-1]) + [1], dtype=S.dtype, device=S.device)
    if rtol is None:
        eps = 2.220446049250313e-16 if A.dtype.name in ("float64", "complex128") else 1.1920928955078125e-07
        rtol = 0.0 if (atol is not None and atol > 0) else eps * _b.max(A.shape[-2], A.shape[-1])
    tol = smax * rtol
    if atol is not None:
        tol = _ops.maximum(tol, _ops.full_like(tol, atol))
    return tol


@takes_tensors("input", rcond="float")
def pinverse(input, rcond=1e-15):
    """torch.pinverse: pinv with rcond as the relative tolerance."""
    return pinv(input, rtol=rcond)


@takes_tensors("A")
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values above max(atol, rtol * s_max)."""
    _check_float(A, "linalg.matrix_rank")
    S = svdvals(A.detach())
    return (S > _tolerance(A, S, atol, rtol)).sum([-1])


@takes_tensors("A", "B", rcond="float")
def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of A X = B via the pseudo-inverse (PyTorch's 'gelsd' results:
    residuals when A is tall and of full rank, the rank and the singular values)."""
    _check_float(A, "linalg.lstsq")
    vec = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vec else B
    S = svdvals(A.detach())
    rtol = rcond if rcond is not None else None
    X = pinv(A, rtol=rtol) @ Bm
    m, n = A.shape[-2], A.shape[-1]
    rank = (S > _tolerance(A, S, None, rtol)).sum([-1])
    if m > n and bool((rank == n).all()):
        r = A @ X - Bm
        residuals = ((r * r.conj()).real if r.dtype.is_complex else r ** 2).sum([-2])
    else:
        residuals = _ops.zeros([0], dtype=A.dtype, device=A.device)
    return Lstsq(X.squeeze(-1) if vec else X, residuals, rank, S)


# Pade [13/13] coefficients and the 1-norm bound under which it is exact to double precision
# (Higham 2005, as scipy.linalg.expm and PyTorch use)
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
           10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


@takes_tensors("A")
def matrix_exp(A):
    """exp(A) by scaling and squaring with a Padé [13/13] approximant."""
    _check_float(A, "linalg.matrix_exp")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices")
    norm = float(A.detach().abs().sum([-2]).amax().item()) if A.numel() else 0.0
    s = _b.max(0, _math.ceil(_math.log2(norm / _THETA13))) if norm > 0 else 0
    A = A / (2.0 ** s)
    n = A.shape[-1]
    I = _ops.eye(n, dtype=A.dtype, device=A.device)
    A2 = A @ A
    A4 = A2 @ A2
    A6 = A4 @ A2
    b = _PADE13
    U = A @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * I)
    V = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * I
    R = solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R


def multi_dot(tensors):
    """The product of a chain of matrices (first and last may be vectors), in the cheapest order."""
    _check_tensor_list(tensors, "linalg_multi_dot", "tensors")
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    ts = list(tensors)
    first_vec, last_vec = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_vec:
        ts[0] = ts[0].unsqueeze(0)
    if last_vec:
        ts[-1] = ts[-1].unsqueeze(1)
    for i, t in enumerate(ts):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    dims = [ts[0].shape[0]] + [t.shape[1] for t in ts]
    out = _chain(ts, dims, 0, len(ts) - 1, _order(dims))
    if first_vec:
        out = out.squeeze(0)
    if last_vec:
        out = out.squeeze(-1)
    return out


def _order(dims):
    """The classic matrix-chain dynamic program: split[i][j] is where (i..j) is best cut."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(ts, dims, i, j, split):
    if i == j:
        return ts[i]
    k = split[i][j]
    return _chain(ts, dims, i, k, split) @ _chain(ts, dims, k + 1, j, split)
