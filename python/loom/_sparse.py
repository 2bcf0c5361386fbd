"""Sparse COO tensors (torch.sparse_coo): SparseTensor, sparse_coo_tensor and Tensor.to_sparse.

A SparseTensor subclasses Tensor (isinstance(s, loom.Tensor) holds, as in PyTorch) but has no C
handle: it holds `indices` (int64, [sparse_dim, nnz]) and `values` ([nnz, *dense sizes]) as dense
tensors, and every operation on it is a composite of dense ops over those two, so autograd flows
through the values (and, from mm, to the dense operand). A dense op reached by a sparse tensor
fails on its missing handle, and the argument conversion names the op (SparseOperandError, a
NotImplementedError as PyTorch's "Could not run 'aten::exp' with arguments from the 'SparseCPU'
backend"). The products, sums and softmax live in _sparse_ops."""
import re
from numbers import Number

from . import _ops
from ._dims import wrap_dim
from ._dtype import device as _device, dtype as _dtype, int64
from ._errors import SparseOperandError, renamed, sparse_operand_message
from ._everyday2 import unique
from ._layout import sparse_coo, strided
from ._numpy import as_tensor
from ._args import takes_tensors
from ._tensor import Size, Tensor, _object_new


class SparseTensor(Tensor):
    """A sparse COO tensor: values[k] sits at position indices[:, k] (followed by the dense dims)."""
    __slots__ = ("_idx", "_val", "_sizes", "_coal")

    is_sparse = property(lambda self: True)
    layout = property(lambda self: sparse_coo)

    @property
    def _h(self):
        raise SparseOperandError(sparse_operand_message("this operation"))

    # ---- metadata ----
    @property
    def shape(self):
        return self._sizes

    def size(self, dim=None):
        return self._sizes if dim is None else self._sizes[wrap_dim(dim, len(self._sizes))]

    def dim(self):
        return len(self._sizes)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._sizes)

    @property
    def dtype(self):
        return self._val.dtype

    @property
    def device(self):
        return self._val.device

    @property
    def is_cuda(self):
        return self._val.is_cuda

    def numel(self):
        return self._sizes.numel()

    nelement = numel

    def __len__(self):
        if not self._sizes:
            raise TypeError("len() of a 0-d tensor")
        return self._sizes[0]

    def is_contiguous(self, memory_format=None):
        return False

    def sparse_dim(self):
        return self._idx.shape[0]

    def dense_dim(self):
        return self._val.dim() - 1

    def _nnz(self):
        return self._idx.shape[1]

    def is_coalesced(self):
        return self._coal

    def _indices(self):
        return self._idx

    def _values(self):
        return self._val

    def indices(self):
        if not self._coal:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        if not self._coal:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._val

    # ---- autograd: through the values ----
    @property
    def requires_grad(self):
        return self._val.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        self._val.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._val.grad_fn

    @property
    def is_leaf(self):
        return self._val.is_leaf

    @property
    def grad(self):
        """A leaf's gradient: sparse, coalesced, with this tensor's pattern (PyTorch's). Duplicates of
        an uncoalesced leaf share one position and so one gradient, which is taken once."""
        g = self._val.grad
        if g is None:
            return None
        if self._coal:
            return _make(self._idx, g, self._sizes, True)
        idx, inverse = _unique_positions(self._idx, self._sizes)
        counts = _ops.bincount(inverse, minlength=idx.shape[1]).to(g.dtype)
        summed = _ops.zeros((idx.shape[1],) + tuple(g.shape[1:]), dtype=g.dtype, device=g.device)
        summed = summed.index_add(0, inverse, g)
        return _make(idx, summed / counts.reshape((-1,) + (1,) * (g.dim() - 1)), self._sizes, True)

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise RuntimeError("assigning a gradient to a sparse tensor is not supported by loom (set None)")
        self._val.grad = None

    def detach(self):
        return _make(self._idx, self._val.detach(), self._sizes, self._coal)

    def clone(self, memory_format=None):
        return _make(self._idx.clone(), self._val.clone(), self._sizes, self._coal)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        raise RuntimeError("backward() from a sparse tensor is not supported: reduce it to a dense scalar first "
                           "(loom.sparse.sum(s) or s.to_dense().sum())")

    # ---- conversions ----
    def coalesce(self):
        """Duplicates summed, positions sorted (row-major); self when already coalesced."""
        if self._coal:
            return self
        if self._nnz() == 0:
            return _make(self._idx, self._val, self._sizes, True)
        idx, inverse = _unique_positions(self._idx, self._sizes)
        v = self._val
        summed = _ops.zeros((idx.shape[1],) + tuple(v.shape[1:]), dtype=v.dtype, device=v.device)
        return _make(idx, summed.index_add(0, inverse, v), self._sizes, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        v = self._val if dtype is None else self._val.to(dtype)
        sd = self.sparse_dim()
        rows = Size(self._sizes[:sd]).numel()
        flat = _ops.zeros((rows,) + tuple(v.shape[1:]), dtype=v.dtype, device=v.device)
        if self._nnz():
            flat = flat.index_add(0, _linear(self._idx, self._sizes[:sd]), v)
        return flat.reshape(tuple(self._sizes))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                               "!=self.sparse_dim() is not supported")
        _check_layout(layout)
        return self

    def to(self, *args, **kwargs):
        dt, dev = kwargs.get("dtype"), kwargs.get("device")
        for a in args:
            if isinstance(a, _dtype):
                dt = a
            elif isinstance(a, Tensor):
                dt, dev = a.dtype, a.device
            elif isinstance(a, (str, _device, int)):
                dev = a
        v = self._val
        if dt is not None and dt != v.dtype:
            v = v.to(dt)
        idx = self._idx
        if dev is not None and _device(dev) != v.device:
            v, idx = v.to(dev), idx.to(dev)
        if v is self._val and not kwargs.get("copy", False):
            return self
        return _make(idx, v, self._sizes, self._coal)

    def cpu(self):
        return self.to("cpu")

    def type_as(self, other):
        return self.to(other.dtype)

    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def tolist(self):
        raise TypeError("tolist() of a sparse tensor: use Tensor.to_dense() first")

    # ---- shape ----
    def transpose(self, dim0, dim1):
        n, sd = self.dim(), self.sparse_dim()
        d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
        if d0 == d1:
            return self
        if (d0 < sd) != (d1 < sd):
            raise RuntimeError("transpose(): can't transpose a sparse dimension with a dense one")
        sizes = list(self._sizes)
        sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
        if d0 < sd:
            order = list(range(sd))
            order[d0], order[d1] = order[d1], order[d0]
            return _make(self._idx[order], self._val, Size(sizes), False)
        return _make(self._idx, self._val.transpose(d0 - sd + 1, d1 - sd + 1), Size(sizes), self._coal)

    def t(self):
        if self.sparse_dim() > 2 or self.dense_dim() != 0:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                               f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
        return self if self.dim() < 2 else self.transpose(0, 1)

    @property
    def T(self):
        return self.t()

    # ---- arithmetic: sparse + sparse, sparse * scalar (or a dense tensor of its shape) ----
    def add(self, other, *, alpha=1):
        if not isinstance(other, SparseTensor):
            if isinstance(other, Tensor):
                raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
            raise SparseOperandError(sparse_operand_message("add") + " (sparse + a number would not be sparse)")
        if other._sizes != self._sizes:
            raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(self._sizes)} != "
                               f"{list(other._sizes)}")
        if other is self:
            return _make(self._idx, self._val * (1 + alpha), self._sizes, self._coal)
        ov = other._val if alpha == 1 else other._val * alpha
        r = _make(_ops.cat([self._idx, other._idx], 1), _ops.cat([self._val, ov.to(self._val.dtype)
                  if ov.dtype != self._val.dtype else ov]), self._sizes, False)
        return r.coalesce() if self._coal and other._coal else r

    __add__ = add

    def __radd__(self, other):
        """dense + sparse: a dense result (PyTorch's add(dense, sparse))."""
        if isinstance(other, Tensor) and not isinstance(other, SparseTensor):
            if tuple(other.shape) != tuple(self._sizes):
                raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                                   f"{list(other.shape)} while other has size {list(self._sizes)} (FYI: dense-sparse "
                                   f"addition does not currently support broadcasting)")
            return other + self.to_dense()
        return self.add(other)

    def sub(self, other, *, alpha=1):
        return self.add(other, alpha=-alpha)

    __sub__ = sub

    def __rsub__(self, other):
        return (-self).__radd__(other)

    def mul(self, other):
        if isinstance(other, SparseTensor):
            raise SparseOperandError(sparse_operand_message("mul") + " (sparse * sparse)")
        if isinstance(other, Tensor) and other.dim() > 0:
            if tuple(other.shape) != tuple(self._sizes) or self.dense_dim():
                raise SparseOperandError(sparse_operand_message("mul") + " (sparse * a dense tensor other than "
                                         "a scalar or one of the same 2-D shape)")
            picked = other.reshape(-1).index_select(0, _linear(self._idx, self._sizes))
            return _make(self._idx, self._val * picked, self._sizes, self._coal)
        if not isinstance(other, (Number, Tensor)):
            return NotImplemented
        return _make(self._idx, self._val * other, self._sizes, self._coal)

    __mul__ = __rmul__ = mul

    def div(self, other):
        if isinstance(other, Tensor) and other.dim() > 0:
            raise SparseOperandError(sparse_operand_message("div") + " (sparse / a tensor that is not 0-d)")
        return _make(self._idx, self._val / other, self._sizes, self._coal)

    __truediv__ = div

    def neg(self):
        return _make(self._idx, -self._val, self._sizes, self._coal)

    __neg__ = neg

    def __repr__(self):
        vals = Tensor.__repr__(self._val)
        extra = ""
        m = re.search(r", dtype=loom\.\w+", vals)
        if m:
            vals, extra = vals.replace(m.group(0), ""), m.group(0)
        vals = re.sub(r", (grad_fn=<\w+>|requires_grad=True)\)$", ")", vals)
        idx = Tensor.__repr__(self._idx).replace("\n", "\n" + " " * 15)
        vals = vals.replace("\n", "\n" + " " * 14)
        tail = ""
        fn = self.grad_fn
        if fn is not None:
            tail = f", grad_fn=<{fn.name()}>"
        elif self.requires_grad:
            tail = ", requires_grad=True"
        if self.device.type != "cpu":
            extra += f", device='{self.device}'"
        size = tuple(self._sizes)
        return (f"tensor(indices={idx},\n       values={vals},\n       size={size}, nnz={self._nnz()}{extra}, "
                f"layout=loom.sparse_coo{tail})")


def _make(indices, values, sizes, coalesced):
    s = _object_new(SparseTensor)
    s._idx, s._val, s._sizes, s._coal = indices, values, Size(sizes), bool(coalesced)
    return s


def _check_layout(layout):
    if layout is not None and layout is not sparse_coo:
        raise RuntimeError(f"to_sparse: loom supports layout=loom.sparse_coo only, got {layout}")


def _linear(indices, sizes):
    """Each column of indices as its row-major position among the sparse sizes (int64)."""
    sd = indices.shape[0]
    if sd == 0:
        return _ops.zeros(indices.shape[1], dtype=int64, device=indices.device)
    lin = indices[sd - 1]
    stride = 1
    for d in range(sd - 2, -1, -1):
        stride *= sizes[d + 1]
        lin = lin + indices[d] * stride
    return lin


def _unravel(lin, sizes):
    rows = []
    for s in reversed(sizes):
        rows.append(lin % s)
        lin = lin // s
    return _ops.stack(rows[::-1])


def _unique_positions(indices, sizes):
    """The distinct positions, sorted, as indices, and each column's slot among them."""
    sd = indices.shape[0]
    uniq, inverse = unique(_linear(indices, sizes[:sd]), sorted=True, return_inverse=True)
    return _unravel(uniq, sizes[:sd]), inverse


def _as_tensor_arg(x, dtype=None, device=None):
    if isinstance(x, SparseTensor):
        raise TypeError("sparse_coo_tensor(): indices and values must be dense tensors")
    if isinstance(x, Tensor):
        if dtype is not None and x.dtype != dtype:
            x = x.to(dtype)
        return x if device is None else x.to(device)
    try:
        return as_tensor(x, dtype=dtype, device=device)
    except (TypeError, ValueError) as e:
        raise renamed(e, "sparse_coo_tensor") from None


@takes_tensors(size="int[]")
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with values[k] at indices[:, k]; size defaults to the smallest holding the
    indices (and values' trailing sizes). Indices are always checked against size (PyTorch's
    check_invariants), so a bad one fails here rather than in a later op."""
    idx = _as_tensor_arg(indices, device=device)
    val = _as_tensor_arg(values, dtype=dtype, device=device)
    if idx.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if idx.dtype != int64:
        if idx.dtype.is_complex or idx.dtype.name == "bool":
            raise RuntimeError(f"indices must be an int64 tensor, not {idx.dtype.name}")
        idx = idx.to(int64)
    if val.dim() == 0:
        raise RuntimeError("values must have at least one dimension (nnz), got a 0-d tensor")
    sd, nnz = idx.shape
    if val.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, "
                           f"nnz from values: {val.shape[0]}")
    dense = tuple(val.shape[1:])
    if nnz:
        low = _ops.amin(idx, 1).tolist()
        for d, m in enumerate(low):
            if m < 0:
                raise RuntimeError(f"found negative index {m} for dim {d}")
        high = _ops.amax(idx, 1).tolist()
    else:
        high = [-1] * sd
    if size is None:
        sizes = tuple(h + 1 for h in high) + dense
    else:
        sizes = tuple(size)
        if len(sizes) != sd + len(dense):
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(sizes)}, "
                               f"sparse_dim = {sd}, dense_dim = {len(dense)}")
        if sizes[sd:] != dense:
            raise RuntimeError(f"values has incorrect size, expected {[nnz, *sizes[sd:]]}, got {list(val.shape)}")
        for d, (h, s) in enumerate(zip(high, sizes)):
            if h >= s:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {s} but found index {h}")
    if not val.requires_grad:
        val = val.detach()   # a Python object of its own: requires_grad_ on the result leaves the caller's alone
    if requires_grad:
        if val.grad_fn is not None:
            raise RuntimeError("sparse_coo_tensor(): requires_grad=True with values that have a grad_fn")
        val.requires_grad_(True)
    coal = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    return _make(idx, val, sizes, coal)


@takes_tensors(sparse_dim="int")
def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """Tensor.to_sparse: the nonzero entries (rows of the first sparse_dim dims with any nonzero) as a
    coalesced sparse COO tensor; gradients flow back to self as dense ones."""
    _check_layout(layout)
    n = self.dim()
    sd = n if sparse_dim is None else sparse_dim
    if not 0 <= sd <= n:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{n}] range, but {sd} is given")
    sizes = tuple(self.shape)
    rows = Size(sizes[:sd]).numel()
    flat = self.reshape((rows,) + sizes[sd:])
    mask = flat != 0
    if sd < n:
        mask = mask.reshape(rows, -1).any(1)
    lin = mask.nonzero().reshape(-1)
    idx = _unravel(lin, sizes[:sd]) if sd else _ops.zeros((0, lin.shape[0]), dtype=int64, device=self.device)
    return _make(idx, flat.index_select(0, lin), sizes, True)


def _dense_layout(self):
    return strided


def install():
    """Tensor.to_sparse and Tensor.layout (a dense tensor's is loom.strided)."""
    Tensor.to_sparse = to_sparse
    Tensor.layout = property(_dense_layout)
