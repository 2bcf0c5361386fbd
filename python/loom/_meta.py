"""Meta tensors (device="meta"): shape, dtype and strides with no storage.

A MetaTensor is a Tensor subclass with no C handle, as vmap's BatchedTensor is: a generated op's
argument conversion meets its missing handle, raises, and the op's `except` branch hands the call
to the meta rules (`_meta_dispatch`), which compute the result's metadata and allocate nothing.
A factory given device="meta" takes the same road (its device conversion raises). Autograd is not
recorded on meta tensors: only requires_grad propagates."""
from ._batched import BatchedOperand
from ._dims import wrap_dim
from ._dtype import BY_CODE, BY_NAME, device
from ._C import lib
from ._tensor import Size, Tensor, _object_new

META = device("meta")


class MetaOperand(BatchedOperand):
    """Raised by a generated op's device conversion for device="meta" (caught by the op itself)."""


def contiguous_strides(shape):
    st, s = [0] * len(shape), 1
    for k in range(len(shape) - 1, -1, -1):
        st[k] = s
        s *= max(shape[k], 1)
    return tuple(st)


def format_strides(shape, fmt_name):
    """The strides memory_format `fmt_name` gives shape (channels_last: N, H, W, C in memory)."""
    if fmt_name in ("channels_last", "channels_last_3d"):
        rank = 4 if fmt_name == "channels_last" else 5
        if len(shape) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {fmt_name} format")
        perm = (0, 2, 3, 1) if rank == 4 else (0, 2, 3, 4, 1)
        st, s = [0] * rank, 1
        for k in range(rank - 1, -1, -1):
            st[perm[k]] = s
            s *= max(shape[perm[k]], 1)
        return tuple(st)
    return contiguous_strides(shape)


def is_dense(shape, strides):
    """Dense and non-overlapping: some order of the dims has strides 1, n0, n0 n1, ..."""
    if any(s == 0 for s in shape):
        return True
    dims = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: strides[d])
    want = 1
    for d in dims:
        if strides[d] != want:
            return False
        want *= shape[d]
    return True


def _dense_order_strides(shape, operands):
    """Dense strides in the order the operands' byte strides (0: broadcast) give the dims: PyTorch's
    insertion sort, the first operand not broadcast along a pair deciding, equal strides by size."""
    nd = len(shape)

    def order(d0, d1):
        for st in operands:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = order(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    st, s = [0] * nd, 1
    for d in perm:
        st[d] = s
        s *= max(shape[d], 1)
    return tuple(st)


def pointwise_strides(shape, operands, compute):
    """A new pointwise result's strides, as the C plan gives them (native/core/pointwise.c,
    result_strides: PyTorch's TensorIterator). operands: (shape, strides, dtype) of the inputs;
    compute: the dtype they are converted to (a converted non-dense input is seen as its dense copy)."""
    shape, nd = tuple(shape), len(shape)
    views, same_shape = [], True
    for sh, st, dt in operands:
        sh, st = tuple(sh), tuple(st)
        dense = is_dense(sh, st)
        if dt != compute and not dense:
            st, dense = _dense_order_strides(sh, [st]), True
        item = compute.itemsize if dt != compute else dt.itemsize
        off = nd - len(sh)
        b = tuple(0 if d < off or (sh[d - off] == 1 and shape[d] != 1) else st[d - off] * item for d in range(nd))
        views.append((sh, st, dense, b))
        same_shape = same_shape and sh == shape
    if same_shape and all(_is_format(sh, st, "contiguous") for sh, st, _, _ in views):
        return format_strides(shape, "contiguous")
    if same_shape and nd == 4 and all(_is_format(sh, st, "channels_last") for sh, st, _, _ in views):
        return format_strides(shape, "channels_last")
    if same_shape and views and all(v[2] and v[3] == views[0][3] for v in views):
        return tuple(x // compute.itemsize for x in views[0][3])
    if 0 in shape:
        return contiguous_strides(shape)
    return _dense_order_strides(shape, [v[3] for v in views])


def _is_format(shape, strides, fmt_name):
    want = format_strides(shape, fmt_name)
    return all(n <= 1 or s == w for n, s, w in zip(shape, strides, want))


class MetaTensor(Tensor):
    """A tensor of device meta: metadata only."""
    __slots__ = ("_m_shape", "_m_stride", "_m_offset", "_m_dtype", "_m_rg")

    @property
    def _h(self):
        return None

    @_h.setter
    def _h(self, h):
        raise RuntimeError("a meta tensor has no storage to hold")

    is_meta = property(lambda self: True)

    @property
    def shape(self):
        return self._m_shape

    def size(self, dim=None):
        return self._m_shape if dim is None else self._m_shape[wrap_dim(dim, len(self._m_shape))]

    def stride(self, dim=None):
        return self._m_stride if dim is None else self._m_stride[wrap_dim(dim, len(self._m_stride))]

    def storage_offset(self):
        return self._m_offset

    @property
    def dtype(self):
        return self._m_dtype

    @property
    def device(self):
        return META

    @property
    def is_cuda(self):
        return False

    @property
    def ndim(self):
        return len(self._m_shape)

    def dim(self):
        return len(self._m_shape)

    ndimension = dim

    def numel(self):
        return self._m_shape.numel()

    nelement = numel

    def __len__(self):
        if not self._m_shape:
            raise TypeError("len() of a 0-d tensor")
        return self._m_shape[0]

    def __iter__(self):
        if not self._m_shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._m_shape[0]))

    def is_contiguous(self, memory_format=None):
        want = format_strides(self._m_shape, getattr(memory_format, "name", "contiguous_format"))
        return all(n <= 1 or s == w for n, s, w in zip(self._m_shape, self._m_stride, want))

    def data_ptr(self):
        return 0

    def is_pinned(self, device=None):
        return False

    # ---- autograd: only the flag (no graph is recorded on meta) ----
    @property
    def requires_grad(self):
        return self._m_rg

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        if requires_grad and not self._m_dtype.differentiable:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._m_rg = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        return None

    @property
    def is_leaf(self):
        return True

    @property
    def grad(self):
        return None

    @grad.setter
    def grad(self, g):
        if g is not None:
            raise RuntimeError("meta tensors hold no gradient (autograd is not recorded on the meta device)")

    def detach(self):
        return make(self._m_shape, self._m_dtype, self._m_stride, self._m_offset)

    def backward(self, *args, **kwargs):
        raise NotImplementedError("autograd is not recorded on meta tensors: backward() has no graph to run")

    # ---- no data ----
    def item(self):
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def tolist(self):
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")

    def numpy(self, *args, **kwargs):
        raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                        "host memory first.")

    def __array__(self, *args, **kwargs):
        return self.numpy()

    @property
    def __array_interface__(self):
        raise AttributeError("a meta tensor has no memory to expose")

    def __dlpack__(self, *args, **kwargs):
        raise BufferError("a meta tensor has no memory to export")

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self.numel()} values is ambiguous")
        return self.item()

    def cpu(self):
        return self.to("cpu")

    def __repr__(self):
        default = BY_CODE[lib.lm_get_default_dtype()].name
        extra = f", size={tuple(self._m_shape)}"
        if self._m_dtype.name != default:
            extra += f", dtype=loom.{self._m_dtype.name}"
        if self._m_rg:
            extra += ", requires_grad=True"
        return f"tensor(..., device='meta'{extra})"

    def __reduce__(self):
        return (_rebuild, (tuple(self._m_shape), self._m_dtype.name, self._m_stride, self._m_offset, self._m_rg))

    def __deepcopy__(self, memo):
        return make(self._m_shape, self._m_dtype, self._m_stride, self._m_offset, self._m_rg)


def make(shape, dtype, strides=None, offset=0, requires_grad=False, cls=None):
    t = _object_new(cls or MetaTensor)
    t._m_shape = Size(int(s) for s in shape)
    t._m_stride = tuple(strides) if strides is not None else contiguous_strides(t._m_shape)
    t._m_offset = int(offset)
    t._m_dtype = dtype
    t._m_rg = bool(requires_grad)
    return t


def _rebuild(shape, dtype_name, strides, offset, requires_grad):
    return make(shape, BY_NAME[dtype_name], strides, offset, requires_grad)


def is_meta_device(d):
    return d == "meta" or isinstance(d, device) and d.type == "meta"
