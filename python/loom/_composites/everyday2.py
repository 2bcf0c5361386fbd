"""Composite ops of ops/everyday2.yaml: more everyday PyTorch functions (inner, ger, addmv, addr,
addbmm, chain_matmul, cross, diagflat, row_stack, kthvalue and the uniqueness ops), each written
with other loom ops so that autograd goes through their parts. The generated function of the same
name in loom._ops checks the arguments and calls it."""
import builtins as _b
import warnings as _warnings

from .. import _ops
from .._args import _check_tensor_list
from .._dtype import bool_, int64
from .._errors import LoomIndexError, LoomTypeError
from .._promotion import promote_types
from .everyday import _tname, _wrap


def _integral(dt):
    return not (dt.is_floating_point or dt.is_complex)


def _beta_term(self, beta):
    """beta * self, or None where beta = 0: then self takes no part (NaN in it does not propagate),
    but one that requires grad gets a zero gradient, as PyTorch's."""
    if beta == 0:
        if not self.requires_grad:
            return None
        return self.masked_fill(_ops.ones(list(self.shape), dtype=bool_, device=self.device), 0)
    return self if beta == 1 else self * beta


def _expand_to(self, shape):
    """self broadcast to shape, refused with PyTorch's expand message."""
    if self.ndim > len(shape):
        raise RuntimeError(f"The expanded size of the tensor ({len(shape)}) must be greater or equal to the number "
                           f"of dimensions in the tensor ({self.ndim})")
    lead = len(shape) - self.ndim
    for i in range(self.ndim - 1, -1, -1):
        if self.shape[i] != 1 and self.shape[i] != shape[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[lead + i]}) must match the existing size "
                               f"({self.shape[i]}) at non-singleton dimension {lead + i}.  Target sizes: {list(shape)}.  "
                               f"Tensor sizes: {list(self.shape)}")
    return self if list(self.shape) == list(shape) else self.expand(list(shape))


# ---------------------------------------------------------------------------------------- products

def inner(self, other):
    if self.ndim == 0 or other.ndim == 0:
        return self * other
    if self.dtype != other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if self.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(self.shape)} and {list(other.shape)}")
    return _ops.tensordot(self, other, [self.ndim - 1], [other.ndim - 1])


def ger(self, vec2):
    for name, v in (("self", self), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return _ops.outer(self, vec2)


def addmv(self, mat, vec, beta, alpha):
    if mat.ndim != 2 or vec.ndim != 1 or self.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, {vec.ndim}")
    n = self.numel()
    if mat.shape[1] != vec.shape[0] or (mat.shape[0] != n and n != 1):
        raise RuntimeError(f"size mismatch, got input ({self.shape[0] if self.ndim else n}), "
                           f"mat ({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    if not self.dtype == mat.dtype == vec.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_tname(self.dtype)}, "
                           f"{_tname(mat.dtype)}, and {_tname(vec.dtype)}")
    if _integral(mat.dtype):   # PyTorch casts the scalars to an integer result's type
        alpha, beta = _b.int(alpha), _b.int(beta)
    p = _ops.matmul(mat, vec)
    p = p if alpha == 1 else p * alpha
    b = _beta_term(self, beta)
    return p if b is None else p + b


def addr(self, vec1, vec2, beta, alpha):
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    dt = promote_types(promote_types(self.dtype, vec1.dtype), vec2.dtype)
    if _integral(dt):
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, (float, complex)):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    shape = [vec1.shape[0], vec2.shape[0]]
    s = _expand_to(self, shape)
    p = _ops.outer(vec1, vec2)
    p = p if alpha == 1 else p * alpha
    b = _beta_term(s, beta)
    out = p if b is None else p + b
    return out if out.dtype == dt else out.to(dt)


def addbmm(self, batch1, batch2, beta, alpha):
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
                           f"{batch2.shape[1]}x{batch2.shape[2]})")
    if batch1.dtype != batch2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_tname(batch1.dtype)} and {_tname(batch2.dtype)}")
    if self.dtype != batch1.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_tname(self.dtype)} and {_tname(batch1.dtype)}")
    shape = [batch1.shape[1], batch2.shape[2]]
    s = _expand_to(self, shape)
    if _integral(batch1.dtype):
        alpha, beta = _b.int(alpha), _b.int(beta)
    if batch1.shape[0] == 0:
        p = _ops.zeros(shape, dtype=batch1.dtype, device=batch1.device)
    else:
        p = _ops.bmm(batch1, batch2).sum(0, dtype=batch1.dtype)
    p = p if alpha == 1 else p * alpha
    b = _beta_term(s, beta)
    return p if b is None else p + b


# the C++ type names of PyTorch's multi_dot message
_CPP_TYPE = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
             "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
             "float64": "double", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def chain_matmul(matrices):
    _check_tensor_list(matrices, "chain_matmul", "matrices")
    _warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
                   "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                   "multiple parameters.", UserWarning, stacklevel=3)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    for i, m in enumerate(matrices[1:], 1):
        if m.dtype != matrices[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_CPP_TYPE.get(matrices[0].dtype.name)} and tensor {i} {_CPP_TYPE.get(m.dtype.name)}")
    out = matrices[0]
    for i, m in enumerate(matrices[1:], 1):
        if matrices[i - 1].shape[1] != m.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(matrices[i - 1].shape)} "
                               f"and {list(m.shape)} cannot be multiplied")
        out = _ops.mm(out, m)
    return out


# ------------------------------------------------------------------------------ vectors and shape

def cross(self, other, dim):
    if dim is None:
        _warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                       "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                       "with that of linalg.cross in a future release.", UserWarning, stacklevel=3)
        dim = next((i for i, s in enumerate(self.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if self.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap(dim, self.ndim)
    if self.ndim == 0 or self.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. "
                           f"Got {self.shape[d] if self.ndim else 0} and {other.shape[d] if other.ndim else 0}")
    if self.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_tname(self.dtype)} but found {_tname(other.dtype)}")
    a = [self.narrow(d, i, 1) for i in range(3)]
    b = [other.narrow(d, i, 1) for i in range(3)]
    return _ops.cat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], d)


def diagflat(self, offset):
    return _ops.diag(self.reshape(-1), offset)


def row_stack(tensors):
    _check_tensor_list(tensors, "row_stack", "tensors")
    return _ops.vstack(tensors)


# ------------------------------------------------------------------------------ order statistics

def kthvalue(self, k, dim, keepdim):
    if self.dtype == bool_:
        raise LoomTypeError("not implemented for dtype bool")
    d = _wrap(dim, self.ndim)
    t = self.reshape(1) if self.ndim == 0 else self
    n = t.shape[d]
    if n == 0:
        raise LoomIndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    order = _ops.sort(t.detach(), d, stable=True)[1]
    idx = order.narrow(d, k - 1, 1)
    values = _ops.gather(t, d, idx)
    if self.ndim == 0:
        return _ops.kthvalue_result(values.reshape(()), idx.reshape(()))
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return _ops.kthvalue_result(values, idx)


# ------------------------------------------------------------------------------------ uniqueness

def _runs(rows):
    """rows (n, m) -> (whether each row starts a run of equal rows, each row's run)."""
    n = rows.shape[0]
    starts = _ops.ones([n], dtype=bool_, device=rows.device)
    if n > 1:
        diff = rows.narrow(0, 1, n - 1) != rows.narrow(0, 0, n - 1)
        diff = diff.any(1) if rows.ndim == 2 else diff
        starts = _ops.cat([starts.narrow(0, 0, 1), diff], 0)
    return starts, _ops.cumsum(starts.to(int64), 0) - 1


def _counts(run, k, device):
    return _ops.zeros([k], dtype=int64, device=device).scatter_add(0, run, _ops.ones_like(run))


def _empty_long(shape, device):
    return _ops.zeros(list(shape), dtype=int64, device=device)


def _row_order(rows):
    """The permutation sorting rows (n, m) lexicographically (stable), by one stable sort per column."""
    n, m = rows.shape
    order = _ops.arange(n, device=rows.device)
    for j in range(m - 1, -1, -1):
        key = rows.select(1, j)[order]   # indexing, not index_select: PyTorch's takes no 1-D uint16/32/64
        order = _ops.index_select(order, 0, _ops.sort(key, 0, stable=True)[1])
    return order


def _unique_rows(rows, sort, return_inverse, return_counts):
    """(unique rows, each row's index among them, their counts) of rows (n, m) or elements (n,)."""
    n = rows.shape[0]
    if sort:
        order = _row_order(rows) if rows.ndim == 2 else _ops.sort(rows, 0, stable=True)[1]
        s = rows[order]
    else:
        s = rows
    starts, run = _runs(s)
    k = _b.int(starts.sum().item()) if n else 0
    values = s[starts]
    inverse = counts = None
    if return_inverse:
        inverse = _ops.zeros([n], dtype=int64, device=rows.device).scatter(0, order, run) if sort else run
    if return_counts:
        counts = _counts(run, k, rows.device)
    return values, inverse, counts


def _flat_unique(self, sort, return_inverse, return_counts):
    x = self.detach().reshape(-1)
    values, inverse, counts = _unique_rows(x, sort, return_inverse, return_counts)
    inverse = inverse.reshape(list(self.shape)) if return_inverse else _empty_long([0], self.device)
    counts = counts if return_counts else _empty_long([0], self.device)
    return values, inverse, counts


def _dim_unique(self, dim, sort, return_inverse, return_counts):
    if self.ndim == 0:
        raise LoomIndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap(dim, self.ndim)
    x = self.detach()
    if x.numel() == 0 and any(s == 0 for i, s in enumerate(x.shape) if i != d):
        if x.shape[d] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    n = x.shape[d]
    if n == 0:
        return x.clone(), _empty_long([0], x.device), _empty_long([0], x.device)
    moved = x.movedim([d], [0])
    rows = moved.reshape(n, -1)
    values, inverse, counts = _unique_rows(rows, sort, return_inverse, return_counts)
    values = values.reshape([values.shape[0]] + list(moved.shape[1:])).movedim([0], [d])
    return (values, inverse if return_inverse else _empty_long([0], x.device),
            counts if return_counts else _empty_long([0], x.device))


def _unique2(self, sorted, return_inverse, return_counts):
    # sorted=False gives them sorted too, as PyTorch's CPU kernel does (the order is unspecified there)
    return _ops._unique2_result(*_flat_unique(self, True, return_inverse, return_counts))


def unique_dim(self, dim, sorted, return_inverse, return_counts):
    return _ops.unique_dim_result(*_dim_unique(self, dim, True, return_inverse, return_counts))


def _unique_consecutive(self, return_inverse, return_counts, dim):
    if dim is None:
        return _ops._unique_consecutive_result(*_flat_unique(self, False, return_inverse, return_counts))
    return _ops._unique_consecutive_result(*_dim_unique(self, dim, False, return_inverse, return_counts))
