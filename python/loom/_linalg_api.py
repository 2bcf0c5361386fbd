"""torch.linalg's decompositions and solvers over the LAPACK ops of ops/linalg_lapack.yaml:
argument spellings, broadcasting of batch dims, named results, and LinAlgError from the
kernels' info codes. Autograd goes through the kernel ops (derivatives/linalg_lapack.yaml)."""
import builtins as _b
from collections import namedtuple

import numpy as _np

from ._args import takes_tensors
from . import _ops
from ._numpy import tensor as _tensor_from

__all__ = ["LinAlgError", "solve", "solve_ex", "solve_triangular", "inv", "inv_ex", "det", "slogdet", "logdet",
           "cholesky", "cholesky_ex", "cholesky_solve", "cholesky_inverse", "qr", "eigh", "eigvalsh", "eig", "eigvals", "svd",
           "svdvals", "householder_product", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "torch_svd",
           "torch_lu_solve"]


class LinAlgError(RuntimeError):
    """A matrix the factorization cannot handle (singular, not positive-definite, no convergence)."""


def _T(x):
    return x.transpose(-2, -1)


def _H(x):
    """The conjugate transpose (the transpose of a real matrix)."""
    return x.transpose(-2, -1).conj() if x.dtype.is_complex else x.transpose(-2, -1)


def _check_float(A, api, arg="A", complex_ok=True):
    if not A.dtype.is_floating_point and not (complex_ok and A.dtype.is_complex):
        raise RuntimeError(f"{api}: Expected a floating point or complex tensor as input. Got {A.dtype.name}")
    if A.ndim < 2:
        raise RuntimeError(f"{api}: The input tensor {arg} must have at least 2 dimensions.")


def _check_square(A, api, arg="A", complex_ok=True):
    _check_float(A, api, arg, complex_ok)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{api}: {arg} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _check_info(info, api, what):
    """Raises LinAlgError for the first nonzero info, naming the batch element as PyTorch does."""
    if not info.any():   # the common case, without building a NumPy view (a batch of 8x8 solves: 5% of the call)
        return
    codes = info.numpy()
    bad = _np.flatnonzero(codes)
    if bad.size == 0:
        return
    i = int(bad[0])
    code = int(codes.reshape(-1)[i])
    batch = f": (Batch element {i})" if info.ndim > 0 else ""
    raise LinAlgError(f"{api}{batch}: {what(code)}")


_SINGULAR = lambda api: (lambda c: f"The diagonal element {c} is zero, the {api} could not be completed because "
                         "the input matrix is singular.")
_NOT_PD = lambda c: (f"The factorization could not be completed because the input is not positive-definite "
                     f"(the leading minor of order {c} is not positive-definite).")
_NO_CONV = lambda kind: (lambda c: f"The algorithm failed to converge because the input matrix is ill-conditioned or "
                         f"has too many repeated {kind} (error code: {c}).")


def _broadcast_batch(A, B, api):
    if A.shape[:-2] == B.shape[:-2]:
        return A, B
    shape = list(_np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2])))
    return A.expand(shape + list(A.shape[-2:])), B.expand(shape + list(B.shape[-2:]))


def _vector_rhs(A, B):
    """torch.linalg.solve's rule: B is a batch of vectors when it has one dim fewer than A, or is 1-D."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


SolveEx = namedtuple("solve_ex", ["result", "info"])


@takes_tensors("A", "B")
def solve_ex(A, B, *, left=True, check_errors=False):
    return _solve_ex(A, B, left, check_errors)


def _solve_ex(A, B, left, check_errors):
    _check_square(A, "linalg.solve")
    vec = _vector_rhs(A, B)
    if vec:
        B = B.unsqueeze(-1)
    if not left:
        A, B = _T(A), _T(B)
    if A.shape[-1] != B.shape[-2]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    A2, B2 = _broadcast_batch(A, B, "linalg.solve")
    X, info = _ops._linalg_solve_ex(A2, B2)
    if check_errors:
        _check_info(info, "linalg.solve", lambda c: "The solver failed because the input matrix is singular.")
    if not left:
        X = _T(X)
    return SolveEx(X.squeeze(-1) if vec else X, info)


@takes_tensors("A", "B")
def solve(A, B, *, left=True):
    """X with A X = B (X A = B when left=False); B may be a (batch of) vector(s)."""
    return _solve_ex(A, B, left, True).result


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with A X = B (X A = B when not left) for triangular A: only its upper or lower triangle is read."""
    _check_float(A, "linalg.solve_triangular")
    A2, B2 = _broadcast_batch(A, B, "linalg.solve_triangular")
    return _ops._linalg_solve_triangular(A2, B2, upper, left, unitriangular)


InvEx = namedtuple("inv_ex", ["inverse", "info"])


@takes_tensors("A")
def inv_ex(A, *, check_errors=False):
    _check_square(A, "linalg.inv")
    r = InvEx(*_ops._linalg_inv_ex(A))
    if check_errors:
        _check_info(r.info, "linalg.inv", _SINGULAR("inversion"))
    return r


@takes_tensors("A")
def inv(A):
    """The inverse of square A; LinAlgError when A is singular."""
    return inv_ex(A, check_errors=True).inverse


@takes_tensors("A")
def det(A):
    _check_square(A, "linalg.det")
    return _ops._linalg_det(A)


Slogdet = namedtuple("slogdet", ["sign", "logabsdet"])


@takes_tensors("A")
def slogdet(A):
    """(sign, log|det A|): no overflow where det itself would."""
    _check_square(A, "linalg.slogdet")
    logabs, sign = _ops._linalg_logabsdet(A)
    return Slogdet(sign, logabs)


@takes_tensors("A")
def logdet(A):
    """log det A: NaN where det A < 0, -inf where it is 0 (torch.logdet); complex A: log|det A| + i arg(det A)."""
    sign, logabs = slogdet(A)
    if A.dtype.is_complex:
        return logabs + _ops.log(sign)
    return _ops.where(sign < 0, float("nan"), logabs)


CholeskyEx = namedtuple("cholesky_ex", ["L", "info"])


@takes_tensors("A")
def cholesky_ex(A, *, upper=False, check_errors=False):
    _check_square(A, "linalg.cholesky")
    r = CholeskyEx(*_ops._linalg_cholesky_ex(A, upper))
    if check_errors:
        _check_info(r.info, "linalg.cholesky", _NOT_PD)
    return r


@takes_tensors("A")
def cholesky(A, *, upper=False):
    """The Cholesky factor L (A = L L^H; U = L^H when upper) of Hermitian positive-definite A (its lower
    triangle is read)."""
    return cholesky_ex(A, upper=upper, check_errors=True).L


@takes_tensors("B", "L", upper="bool")
def cholesky_solve(B, L, upper=False):
    """X with A X = B for A = L L^H (torch.cholesky_solve)."""
    if upper:
        L = _H(L)
    Y = solve_triangular(L, B, upper=False)
    return solve_triangular(_H(L), Y, upper=True)


@takes_tensors("L", upper="bool")
def cholesky_inverse(L, upper=False):
    n = L.shape[-1]
    return cholesky_solve(_ops.eye(n, dtype=L.dtype, device=L.device).expand(list(L.shape)), L, upper)


QR = namedtuple("qr", ["Q", "R"])


@takes_tensors("A", mode="str")
def qr(A, mode="reduced"):
    """A = Q R; mode 'reduced' (Q m x k), 'complete' (Q m x m) or 'r' (R only, Q empty)."""
    _check_float(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    return QR(*_ops._linalg_qr(A, mode == "complete", mode != "r"))


Eigh = namedtuple("eigh", ["eigenvalues", "eigenvectors"])


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO == "U"


@takes_tensors("A", UPLO="str")
def eigh(A, UPLO="L"):
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of symmetric (complex: Hermitian) A, from
    one triangle. Complex eigenvectors are fixed up to a phase each: a loss that depends on it has no
    gradient (refused, as PyTorch)."""
    _check_square(A, "linalg.eigh")
    L, V, info = _ops._linalg_eigh(A, _uplo(UPLO), True)
    _check_info(info, "linalg.eigh", _NO_CONV("eigenvalues"))
    return Eigh(L, V)


@takes_tensors("A", UPLO="str")
def eigvalsh(A, UPLO="L"):
    _check_square(A, "linalg.eigvalsh")
    L, _, info = _ops._linalg_eigh(A, _uplo(UPLO), A.requires_grad)
    _check_info(info, "linalg.eigvalsh", _NO_CONV("eigenvalues"))
    return L


Eig = namedtuple("eig", ["eigenvalues", "eigenvectors"])


def _check_eig_dtype(A, api):
    # PyTorch: integer input finds no complex counterpart; 16-bit floats have no CPU kernel
    if A.dtype.is_complex or A.dtype.name in ("float32", "float64"):
        return
    if A.dtype.is_floating_point:
        raise NotImplementedError(f"{api}: \"linalg_eig_out_cpu\" not implemented for '{A.dtype.name}'")
    raise RuntimeError(f"{api}: Expected a floating point or complex tensor as input. Got {A.dtype.name}")


@takes_tensors("A")
def eig(A):
    """Eigenvalues and right eigenvectors of general square A, complex (complex64 from float32 and
    complex64, complex128 from float64 and complex128), in LAPACK's order, each eigenvector of unit
    2-norm with its largest component real. Gradients through the eigenvectors are defined only for
    losses that do not depend on their phases (refused otherwise, as PyTorch)."""
    _check_square(A, "linalg.eig", complex_ok=True)
    _check_eig_dtype(A, "linalg.eig")
    if A.numel() and not _b.bool(_ops.isfinite(A.detach()).all()):
        raise RuntimeError("linalg.eig: input tensor should not contain infs or NaNs.")
    L, V, info = _ops._linalg_eig(A, True)
    _check_info(info, "linalg.eig", _NO_CONV("eigenvalues"))
    return Eig(L, V)


@takes_tensors("A")
def eigvals(A):
    """The eigenvalues of general square A, complex, as linalg.eig's (the eigenvectors are computed
    only when A requires grad: the gradient needs them)."""
    _check_square(A, "linalg.eigvals", complex_ok=True)
    _check_eig_dtype(A, "linalg.eigvals")
    L, _, info = _ops._linalg_eig(A, A.requires_grad)
    _check_info(info, "linalg.eigvals", _NO_CONV("eigenvalues"))
    return L


SVD = namedtuple("svd", ["U", "S", "Vh"])


@takes_tensors("A", full_matrices="bool")
def svd(A, full_matrices=True):
    """A = U diag(S) Vh, S descending and real."""
    _check_float(A, "linalg.svd")
    U, S, Vh, info = _ops._linalg_svd(A, full_matrices, True)
    _check_info(info, "linalg.svd", _NO_CONV("singular values"))
    return SVD(U, S, Vh)


@takes_tensors("A")
def svdvals(A):
    _check_float(A, "linalg.svdvals")
    _, S, _, info = _ops._linalg_svd(A, False, A.requires_grad)
    _check_info(info, "linalg.svdvals", _NO_CONV("singular values"))
    return S


TorchSVD = namedtuple("svd", ["U", "S", "V"])


@takes_tensors("input", some="bool", compute_uv="bool")
def torch_svd(input, some=True, compute_uv=True):
    """torch.svd: V = Vh^H rather than Vh; with compute_uv=False, U and V are zero-filled."""
    if not compute_uv:
        S = svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = list(input.shape[:-2])
        return TorchSVD(_ops.zeros(batch + [m, m], dtype=input.dtype, device=input.device), S,
                        _ops.zeros(batch + [n, n], dtype=input.dtype, device=input.device))
    U, S, Vh = svd(input, full_matrices=not some)
    return TorchSVD(U, S, _H(Vh))


@takes_tensors("A", "tau")
def householder_product(A, tau):
    _check_float(A, "linalg.householder_product", "input")
    return _ops.linalg_householder_product(A, tau)


LUFactorEx = namedtuple("lu_factor_ex", ["LU", "pivots", "info"])
LUFactor = namedtuple("lu_factor", ["LU", "pivots"])
PLU = namedtuple("lu", ["P", "L", "U"])


@takes_tensors("A")
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    _check_float(A, "linalg.lu_factor")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    r = LUFactorEx(*_ops._linalg_lu_factor_ex(A))
    if check_errors:
        _check_info(r.info, "linalg.lu_factor", lambda c: f"U[{c},{c}] is zero and using it on lu_solve would result "
                    "in a division by zero. If you still want to perform the factorization, consider calling "
                    "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return r


@takes_tensors("A")
def lu_factor(A, *, pivot=True):
    """A's LU factorization packed in one matrix, and the 1-based int32 row swaps."""
    r = lu_factor_ex(A, pivot=pivot, check_errors=True)
    return LUFactor(r.LU, r.pivots)


def _permutation(pivots, m, dtype):
    """The permutation matrices P (A = P L U) of LAPACK's sequential row swaps."""
    piv = pivots.numpy().astype(_np.int64) - 1
    batch = piv.shape[:-1]
    perm = _np.broadcast_to(_np.arange(m), batch + (m,)).copy()
    for idx in _np.ndindex(*batch):
        p = perm[idx]
        for i, j in enumerate(piv[idx]):
            p[i], p[j] = p[j], p[i]
    P = _np.zeros(batch + (m, m))
    _np.put_along_axis(P, perm[..., None, :], 1.0, axis=-2)
    return _tensor_from(P, dtype=dtype)


@takes_tensors("A")
def lu(A, *, pivot=True):
    """A = P L U with L unit lower triangular (m x k) and U upper triangular (k x n)."""
    LU_, piv = lu_factor(A, pivot=pivot)
    m, n = A.shape[-2], A.shape[-1]
    k = _b.min(m, n)
    L = LU_.narrow(-1, 0, k).tril(-1) + _ops.eye(m, k, dtype=A.dtype, device=A.device)
    U = LU_.narrow(-2, 0, k).triu()
    return PLU(_permutation(piv, m, A.dtype), L, U)


@takes_tensors("LU", "pivots", "B", label="linalg_lu_solve")
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B from A's lu_factor (A^H X = B when adjoint, X A = B when not left)."""
    if left:
        return _ops._linalg_lu_solve(LU, pivots, B, adjoint)
    # X A = B  <=>  A^H X^H = B^H
    return _H(_ops._linalg_lu_solve(LU, pivots, _H(B), not adjoint))


@takes_tensors("b", "LU_data", "LU_pivots", label="lu_solve")
def torch_lu_solve(b, LU_data, LU_pivots):
    """torch.lu_solve: the right-hand side first."""
    return lu_solve(LU_data, LU_pivots, b)
