"""loom.linalg, as torch.linalg: norms (here), decompositions and solvers (_linalg_api, over the
LAPACK ops) and the functions composed from them (_linalg_composite)."""
import builtins as _b

from ._args import takes_tensors as _takes_tensors   # private: these modules are public namespaces
from . import _ops
from ._linalg_api import (LinAlgError, solve, solve_ex, solve_triangular, inv, inv_ex, det, slogdet,  # noqa: F401
                          cholesky, cholesky_ex, qr, eigh, eigvalsh, eig, eigvals, svd, svdvals, householder_product,
                          lu_factor, lu_factor_ex, lu, lu_solve)
from ._linalg_composite import lstsq, pinv, matrix_rank, matrix_exp, multi_dot  # noqa: F401
from ._linalg_api import _check_float as _check_float_cond
from ._ops import matmul, linalg_matrix_power as matrix_power, linalg_cross as cross  # noqa: F401
from ._ops import linalg_vecdot as vecdot  # noqa: F401


def vander(x, *, N=None):
    """torch.linalg.vander's spelling (the schema cannot name an argument N)."""
    return _ops.linalg_vander(x, n=N)

__all__ = ["vector_norm", "matrix_norm", "norm", "LinAlgError", "solve", "solve_ex", "solve_triangular", "inv",
           "inv_ex", "det", "slogdet", "cholesky", "cholesky_ex", "qr", "eigh", "eigvalsh", "eig", "eigvals", "svd", "svdvals",
           "householder_product", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "lstsq", "pinv", "matrix_rank",
           "matrix_power", "matrix_exp", "multi_dot", "cross", "vecdot", "vander", "cond", "matmul"]

_INF = _b.float("inf")


@_takes_tensors("x")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ord-norm of x over dim (all elements by default) seen as a vector."""
    if isinstance(dim, int):
        dim = [dim]
    if x.dtype.is_complex:   # the norm of |x|, real as PyTorch's (the kernel is real-only)
        x = x.abs()
    if not x.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype.name}")
    return _ops.linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype)


@_takes_tensors("A", ord="Number|str", dim="int[]", keepdim="bool", dtype="ScalarType")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The ord-norm ('fro', 1, -1, inf, -inf) of the matrices over the two dims of A."""
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d0, d1 = (d % A.ndim for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, [d0, d1], keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        if dtype is not None:
            A = A.to(dtype)
        S = svdvals(A.movedim([d0, d1], [-2, -1]))
        r = S.sum([-1]) if ord == "nuc" else S.amax([-1]) if ord == 2 else S.amin([-1])
        return r.unsqueeze(d0 if d0 < d1 else d1).unsqueeze(d1 if d0 < d1 else d0) if keepdim else r
    if ord not in (1, -1, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if dtype is not None:
        A = A.to(dtype)
    # 1-norms sum down the columns (over d0) then pick over d1; inf-norms the other way round
    summed, picked = (d0, d1) if ord in (1, -1) else (d1, d0)
    s = A.abs().sum([summed], keepdim=True)
    r = s.amax([picked], keepdim=True) if ord > 0 else s.amin([picked], keepdim=True)
    return r if keepdim else r.squeeze([d0, d1])


@_takes_tensors("A", ord="Number|str", dim="int[]", keepdim="bool", dtype="ScalarType")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm (1-D, or an int dim) or a matrix norm (2-D, or two dims), as torch.linalg.norm."""
    if isinstance(dim, int):
        dim = [dim]
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D.")
        dim = list(range(A.ndim))
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: ord={ord!r} is a matrix norm: give two dims")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


@_takes_tensors("input", label="norm")
def _tensor_norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm: p='fro' (or None) is the 2-norm over dim (all elements by default); a number is the
    vector p-norm over dim; 'nuc' is not available."""
    if isinstance(dim, int):
        dim = [dim]
    if p is None or p == "fro":
        return vector_norm(input, 2, dim, keepdim, dtype=dtype)
    if isinstance(p, str):
        if p == "nuc":
            raise NotImplementedError("norm: p='nuc' needs singular values, which loom does not compute yet")
        raise RuntimeError(f"norm: p must be a number, 'fro' or 'nuc', got {p!r}")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


@_takes_tensors("input", "other", rtol="float", atol="float", equal_nan="bool")
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when isclose holds everywhere (a Python bool)."""
    return _b.bool(_ops.isclose(input, other, rtol, atol, equal_nan).all())


@_takes_tensors("A", p="Number|str")
def cond(A, p=None):
    """The condition number: s_max / s_min for p in (None, 2), s_min / s_max for -2, else norm(A) norm(A^-1)."""
    _check_float_cond(A, "linalg.cond")
    if p in (None, 2, -2):
        S = svdvals(A)
        r = S.amax([-1]) / S.amin([-1])
        return r if p != -2 else 1.0 / r
    return matrix_norm(A, p) * matrix_norm(inv(A), p)
