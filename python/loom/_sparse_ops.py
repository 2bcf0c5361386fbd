"""Products and reductions with sparse COO tensors (torch.sparse.mm, addmm, sum; torch.mm/matmul/@
with a sparse operand), as differentiable composites of dense ops: a product gathers the dense rows
the column indices name, scales them by the values and index_adds them into the result's rows, so
gradients reach the dense operand (dense) and the values (the sparse operand's pattern)."""
import functools

from . import _ops
from ._args import takes_tensors
from ._dims import wrap_dim
from ._errors import SparseOperandError, sparse_operand_message
from ._sparse import SparseTensor, _make
from ._tensor import Tensor


def _check_matrix(s, op):
    if s.sparse_dim() != 2 or s.dense_dim() != 0:
        raise SparseOperandError(f"{op}: loom multiplies a sparse matrix with 2 sparse and 0 dense dimensions, got "
                                 f"{s.sparse_dim()} sparse and {s.dense_dim()} dense dimensions")


def _spmm(s, d, op="addmm"):
    """s (sparse n x k) @ d (dense k x m): dense n x m."""
    if isinstance(d, SparseTensor):
        raise SparseOperandError(sparse_operand_message("mm") + " (sparse @ sparse)")
    if not isinstance(d, Tensor):
        raise TypeError(f"mm(): argument 'mat2' must be Tensor, not {type(d).__name__}")
    _check_matrix(s, op)
    if d.dim() != 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(d.dim(), 1)}, "
                         f"{max(d.dim(), 1) - 1}], but got 1)")
    if d.shape[0] != s.shape[1]:
        raise RuntimeError(f"{op}: Argument #3 (dense): Expected dim 0 size {s.shape[1]}, got {d.shape[0]}")
    if d.dtype != s.dtype:
        raise RuntimeError(f"expected scalar type {s.dtype.scalar_type} but found {d.dtype.scalar_type}")
    rows, cols = s._idx[0], s._idx[1]
    out = _ops.zeros((s.shape[0], d.shape[1]), dtype=d.dtype, device=d.device)
    return out.index_add(0, rows, d.index_select(0, cols) * s._val.unsqueeze(1))


def _dense_spmm(d, s):
    """d (dense) @ s (sparse): (s^T @ d^T)^T."""
    if d.dim() != 2:
        raise RuntimeError(f"self must be a matrix (mm with a sparse mat2), got a {d.dim()}-D tensor")
    if d.shape[1] != s.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({d.shape[0]}x{d.shape[1]} and "
                           f"{s.shape[0]}x{s.shape[1]})")
    return _spmm(s.t(), d.t(), "mm").t()


def sparse_mm(mat1, mat2, reduce=None):
    """torch.sparse.mm: sparse @ dense -> dense (gradients: dense to mat2, sparse with mat1's pattern to
    mat1); dense @ sparse -> dense."""
    if reduce is not None:
        raise SparseOperandError("sparse.mm(): reduce= is not supported by loom")
    if isinstance(mat1, SparseTensor):
        return _spmm(mat1, mat2)
    if isinstance(mat2, SparseTensor):
        return _dense_spmm(mat1, mat2)
    return _ops.mm(mat1, mat2)


def _matmul_sparse(a, b):
    if isinstance(a, SparseTensor):
        if isinstance(b, Tensor) and not isinstance(b, SparseTensor) and b.dim() == 1:
            if a.dim() == 2 and b.shape[0] != a.shape[1]:
                raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
            return _spmm(a, b.unsqueeze(1)).squeeze(1)
        return _spmm(a, b)
    if b.dim() != 2:
        raise SparseOperandError(sparse_operand_message("matmul") + " (a sparse operand must be a matrix)")
    if a.dim() == 1:
        return _dense_spmm(a.unsqueeze(0), b).squeeze(0)
    return _dense_spmm(a, b)


def _dispatching(dense_fn, sparse_fn, second):
    """dense_fn (a generated op) where no argument is sparse, else sparse_fn: loom.mm and loom.matmul, so
    torch.mm(S, D) runs unchanged. Dense calls pay one class test per argument."""
    @functools.wraps(dense_fn)
    def fn(*args, **kwargs):
        if any(a.__class__ is SparseTensor for a in args) or any(v.__class__ is SparseTensor
                                                                 for v in kwargs.values()):
            operands = list(args) + [kwargs.pop(k) for k in ("self", "input", second) if k in kwargs]
            if kwargs or len(operands) != 2:
                raise SparseOperandError(f"{dense_fn.__name__}(): out= is not supported with a sparse operand")
            return sparse_fn(*operands)
        return dense_fn(*args, **kwargs)
    return fn


mm = _dispatching(_ops.mm, sparse_mm, "mat2")
matmul = _dispatching(_ops.matmul, _matmul_sparse, "other")


@takes_tensors("input", "mat2")
def spmm(input, mat2):
    """torch.spmm: sparse (or dense) @ dense."""
    return sparse_mm(input, mat2)


def sparse_addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """torch.sparse.addmm: beta * mat + alpha * (mat1 @ mat2), mat1 sparse."""
    if not isinstance(mat1, SparseTensor):
        return _ops.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)
    prod = _spmm(mat1, mat2)
    if tuple(mat.shape) != tuple(prod.shape):
        mat = mat.expand(tuple(prod.shape))
    prod = prod if alpha == 1 else prod * alpha
    return prod if beta == 0 else mat + prod if beta == 1 else mat * beta + prod


def sparse_sum(input, dim=None, dtype=None):
    """torch.sparse.sum: a dense 0-d tensor without dim; with dim, a dense tensor when every sparse dim is
    summed, else a coalesced sparse tensor over the sparse dims left."""
    if not isinstance(input, SparseTensor):
        return _ops.sum(input, dtype=dtype) if dim is None else _ops.sum(input, dim, dtype=dtype)
    v = input._val if dtype is None else input._val.to(dtype)
    if dim is None:
        return v.sum()
    n, sd = input.dim(), input.sparse_dim()
    dims = sorted({wrap_dim(d, n) for d in ((dim,) if isinstance(dim, int) else dim)})
    dense_dims = [d - sd + 1 for d in dims if d >= sd]
    if dense_dims:
        v = v.sum(dense_dims)
    sparse_dims = [d for d in dims if d < sd]
    if not sparse_dims:
        sizes = [s for d, s in enumerate(input.shape) if d not in dims]
        return _make(input._idx, v, sizes, input.is_coalesced())
    if len(sparse_dims) == sd:
        return v.sum(0)
    keep = [d for d in range(sd) if d not in sparse_dims]
    sizes = [s for d, s in enumerate(input.shape) if d not in dims]
    return _make(input._idx[keep], v, sizes, False).coalesce()


def _sum_method(self, dim=None, keepdim=False, dtype=None):
    if keepdim:
        raise SparseOperandError("sum(): keepdim=True is not supported for sparse tensors")
    return sparse_sum(self, dim, dtype)


def install():
    """The products and sum as SparseTensor methods and operators (a subclass's reflected operator runs
    before Tensor's, so dense @ sparse reaches __rmatmul__)."""
    S = SparseTensor
    S.mm = lambda self, mat2: sparse_mm(self, mat2)
    S.matmul = S.__matmul__ = lambda self, other: _matmul_sparse(self, other)
    S.__rmatmul__ = lambda self, other: _matmul_sparse(other, self)
    S.sum = _sum_method
