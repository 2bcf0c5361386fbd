"""Helpers named in derivatives.yaml. Written with loom ops only, so their
results are differentiable again (double backward)."""
from .. import _ops as lm
from .._dtype import bool_ as _bool, float32 as _f32, float64 as _f64, int64 as _i64   # private: _nodes star-imports this module
from . import linalg_formulas
from . import singular_formulas
from .engine import sum_to as _sum_to
from .grad_mode import grad_enabled as _grad_enabled


def _dims(dim, ndim):
    if dim is None:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted(d % max(ndim, 1) for d in dims) if dims else list(range(ndim))


def _unsqueeze_reduced(grad, shape, dim, keepdim):
    if not keepdim:
        for d in _dims(dim, len(shape)):
            if len(shape):
                grad = grad.unsqueeze(d)
    return grad


def to_dtype(x, dtype):
    """x in dtype, as x.to(dtype) but without its overload resolution when x already is."""
    return x if x.dtype is dtype else lm.to(x, dtype)


def to_device(x, device, dtype):
    """x on device in dtype: to.device's gradient goes back where its input was."""
    return x if x.dtype is dtype and x.device == device else lm.to(x, device, dtype)


def conj(x):
    """x's complex conjugate, for formulas over real and complex alike (derivatives/complex.yaml):
    a real tensor, or a Python number an op was given, is its own, at no cost."""
    if isinstance(x, lm.Tensor):
        return lm.conj_physical(x) if x.dtype.is_complex else x
    return x.conjugate() if isinstance(x, complex) else x


def maybe_multiply(x, s):
    """x * s, skipped when s is 1 (add's and sub's alpha): one op less per backward."""
    return x if s == 1 else x * s


def sum_backward(grad, shape, dim, keepdim):
    if dim is None:   # a full reduction: grad is 0-d (or all ones with keepdim) and expands as is
        return grad.expand(tuple(shape))
    return _unsqueeze_reduced(grad, shape, dim, keepdim).expand(tuple(shape))


def mean_backward(grad, shape, dim, keepdim):
    n = 1
    for d in _dims(dim, len(shape)):
        n *= shape[d] if len(shape) else 1
    return sum_backward(grad, shape, dim, keepdim) / max(n, 1)


def amax_backward(grad, self, result, dim, keepdim):
    """Split the gradient evenly between tied extremes, as PyTorch does."""
    mask = (self == _unsqueeze_reduced(result, self.shape, dim, keepdim)).to(grad.dtype)
    count = mask.sum(dim, keepdim=True) if dim is not None else mask.sum()
    return sum_backward(grad, self.shape, dim, keepdim) * mask / count


def selected_backward(grad, shape, dim, indices, keepdim):
    """Gradient of values picked by index along dim (max.dim, min.dim)."""
    d = dim % max(len(shape), 1)
    grad = _unsqueeze_reduced(grad, shape, d, keepdim)
    indices = _unsqueeze_reduced(indices, shape, d, keepdim)
    if not len(shape):
        return grad
    pos = lm.arange(shape[d], device=grad.device).reshape([shape[d] if i == d else 1 for i in range(len(shape))])
    return lm.where(pos == indices, grad, 0.0)


def matmul_backward(grad, self, other):
    """(d self, d other) for NumPy-style matmul, 1-D operands included."""
    a, b = self, other
    if a.ndim == 1 and b.ndim == 1:    # a dot product: grad is 0-d, nothing to unsqueeze
        return grad * conj(b), grad * conj(a)
    if a.ndim == 1:
        a, grad = a.unsqueeze(0), grad.unsqueeze(-2)
    if b.ndim == 1:
        b, grad = b.unsqueeze(-1), grad.unsqueeze(-1)
    ga = lm.matmul(grad, conj(b.transpose(-1, -2)))   # conj: complex operands (a no-op for real ones)
    gb = lm.matmul(conj(a.transpose(-1, -2)), grad)
    if self.ndim == 1:
        ga = ga.squeeze(-2)
    if other.ndim == 1:
        gb = gb.squeeze(-1)
    return ga, gb    # batch dims broadcast: the engine sums them back to each input's shape


def permute_backward(grad, dims):
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return grad.permute(inverse)


def narrow_backward(grad, shape, dim, start):
    d = dim % len(shape)
    start = start % shape[d] if start < 0 else start
    before = list(shape)
    before[d] = start
    after = list(shape)
    after[d] = shape[d] - start - grad.shape[d]
    def zeros(size):
        return lm.zeros(size, dtype=grad.dtype, device=grad.device)
    return lm.cat([zeros(before), grad, zeros(after)], d)


def diagonal_backward(grad, shape, offset, dim1, dim2):
    """grad written on that diagonal of zeros of self's shape: index_add into the flattened
    (dim1, dim2) plane, so that it is differentiable again."""
    n = len(shape)
    d1, d2 = dim1 % n, dim2 % n
    rest = [s for i, s in enumerate(shape) if i not in (d1, d2)]
    r, c = shape[d1], shape[d2]
    pos = lm.arange(grad.shape[-1], device=grad.device) * (c + 1) + (offset if offset >= 0 else -offset * c)
    plane = lm.zeros(rest + [r * c], dtype=grad.dtype, device=grad.device).index_add(-1, pos, grad)
    return plane.unflatten(-1, (r, c)).movedim([-2, -1], [d1, d2])


def cat_backward(grad, tensors, dim):
    d = dim % max(grad.ndim, 1)
    out, at = [], 0
    for t in tensors:
        if t.ndim == 1 and t.shape[0] == 0 and grad.ndim > 1:   # legacy empty inputs took no part
            out.append(lm.zeros(0, dtype=grad.dtype, device=grad.device))
            continue
        out.append(grad.narrow(d, at, t.shape[d]))
        at += t.shape[d]
    return out


def stack_backward(grad, n, dim):
    d = dim % grad.ndim
    return [grad.narrow(d, i, 1).squeeze(d) for i in range(n)]


def clamp_backward(grad, self, min, max):
    keep = lm.ones_like(self, dtype=grad.dtype)
    if min is not None:
        keep = keep * (self >= min)
    if max is not None:
        keep = keep * (self <= max)
    return grad * keep


def maximum_backward(grad, self, other):
    """Ties split the gradient in half, as PyTorch does."""
    wins = (self > other).to(grad.dtype) + (self == other).to(grad.dtype) * 0.5
    return grad * wins, grad * (1 - wins)


def fmax_backward(grad, self, other):
    """All of the gradient to the one fmax picked: self where self >= other or other is NaN
    (ties to self, unlike maximum's halves), as PyTorch's."""
    to_self = ((self >= other) | other.isnan()).to(grad.dtype)
    return grad * to_self, grad * (1 - to_self)


def fmin_backward(grad, self, other):
    to_self = ((self <= other) | other.isnan()).to(grad.dtype)
    return grad * to_self, grad * (1 - to_self)


def zeros_like(grad):
    return lm.zeros_like(grad)


def linear_weight_backward(grad, input):
    """d weight of linear: grad^T @ input with every leading dim folded into the rows."""
    g = grad.reshape(-1, grad.shape[-1]) if grad.ndim != 2 else grad
    x = input.reshape(-1, input.shape[-1]) if input.ndim != 2 else input
    return lm.mm(g.t(), x)


def linear_grads(grad, input, weight, mask):
    """(d input, d weight, d bias) of linear, those in mask: one linear_backward call, or the
    separate ops when the formulas build a graph of their own (create_graph), as that kernel
    has no derivative."""
    if not _grad_enabled():
        return lm.linear_backward(grad, input, weight, *mask)
    return (grad.matmul(weight) if mask[0] else None, linear_weight_backward(grad, input) if mask[1] else None,
            linear_bias_backward(grad) if mask[2] else None)


def linear_bias_backward(grad):
    """d bias of linear: grad summed over every leading dim (the engine's general
    broadcast reduction would get there too, at several more op calls)."""
    return grad if grad.ndim <= 1 else grad.sum(list(range(grad.ndim - 1)))


def conv_bias_backward(grad):
    """d bias of conv2d: grad summed over batch and space. Summing the batch dim
    first (one outer reduction) then the small planes is ~8x faster here than
    reducing dims (0, 2, 3) in one call, whose rows are only H*W long."""
    return grad.sum(0).sum([1, 2])


def pool_pick(grad, indices):
    """grad (shaped like the pooled input) read at each window's argmax: the
    derivative of max_pool2d_backward with respect to its grad_output."""
    return grad.flatten(-2).gather(-1, indices.flatten(-2)).reshape(indices.shape)


def negated(ints):
    """The int or list of ints with each sign flipped: roll's backward rolls back."""
    return -ints if isinstance(ints, int) else [-i for i in ints]


def gelu_tanh_backward(grad, self):
    k = 0.7978845608028654
    inner = k * (self + 0.044715 * self * self * self)
    t = inner.tanh()
    return grad * (0.5 * (1 + t) + 0.5 * self * (1 - t * t) * k * (1 + 3 * 0.044715 * self * self))


# ---- indexing, sorting, scans: gradients go back to the positions that were read


def gather_backward(grad, shape, dim, index):
    return lm.zeros(tuple(shape), dtype=grad.dtype, device=grad.device).scatter_add(dim, index, grad)


def src_backward(grad, shape):
    """scatter's src may be larger than index: the elements beyond index's extent get zero."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    z = lm.zeros(tuple(shape), dtype=grad.dtype, device=grad.device)
    z[tuple(slice(0, s) for s in grad.shape)] = grad
    return z


def index_select_backward(grad, shape, dim, index):
    if grad.dtype.is_complex:   # the scatter-add is real: over the (..., 2) view, a trailing dim it never indexes
        return lm.view_as_complex(index_select_backward(lm.view_as_real(grad.contiguous()), tuple(shape) + (2,),
                                                        dim % len(shape), index))
    return lm.zeros(tuple(shape), dtype=grad.dtype, device=grad.device).index_add(dim, index, grad)


def index_add_source_backward(grad, dim, index, source, alpha):
    g = grad.index_select(dim, index)
    return g if alpha == 1 else g * alpha


def scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result, for_self):
    """PyTorch's gradients of scatter_reduce: sum and mean pass grad back (divided by each position's count);
    prod the product of the others (computed apart where an element is 0); amax and amin share grad evenly
    among the elements equal to the result. Without include_self, positions index names give self nothing.
    The gradient of self when for_self, else that of src."""
    if reduce == "sum":
        gs, gsrc = grad, grad.gather(dim, index)
    elif reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        gs = grad * masked_self.scatter_reduce(dim, index, src, reduce, include_self=include_self) / masked_self
        src_zero = src == 0
        zeros = lm.zeros(tuple(self.shape), dtype=self.dtype, device=self.device)
        num_zeros = zeros.scatter_add(dim, index, src_zero.to(self.dtype)).gather(dim, index)
        single_zero = src_zero & (num_zeros == 1)
        masked_src_result = self.scatter_reduce(dim, index, src.masked_fill(single_zero, 1), reduce,
                                                include_self=include_self)
        gsrc = lm.where(single_zero, (grad * masked_src_result).gather(dim, index),
                        (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    elif reduce == "mean":
        n = lm.ones_like(grad) if include_self else lm.zeros_like(grad)
        n = n.scatter_add(dim, index, lm.ones_like(src))
        n = n.masked_fill(n == 0, 1)
        gs, gsrc = grad / n, grad.gather(dim, index) / n.gather(dim, index)
    else:   # amax, amin
        value = result.gather(dim, index)
        self_is, src_is = self == result, src == value
        share = grad / self_is.to(self.dtype).scatter_add(dim, index, src_is.to(self.dtype))
        gs, gsrc = self_is * share, src_is * share.gather(dim, index)
    if not for_self:
        return src_backward(gsrc, src.shape)
    return gs if include_self else gs.scatter(dim, index, 0)


def unfold_backward(grad, shape, dimension, size, step):
    """Tensor.unfold's windows may overlap (step < size): each element gets the sum of its windows' gradients."""
    if len(shape) == 0:
        return grad.sum().reshape(())
    if grad.dtype.is_complex:   # index_add is real: the real and imaginary parts apart
        parts = [unfold_backward(p.contiguous(), shape, dimension, size, step) for p in (lm.real(grad), lm.imag(grad))]
        return lm.view_as_complex(lm.stack(parts, -1))
    d = dimension % len(shape)
    windows = grad.shape[d]
    at = (lm.arange(windows, dtype=_i64, device=grad.device).unsqueeze(1) * step
          + lm.arange(size, dtype=_i64, device=grad.device)).reshape(-1)
    g = grad.movedim(-1, d + 1).reshape(list(shape[:d]) + [windows * size] + list(shape[d + 1:]))
    return lm.zeros(tuple(shape), dtype=grad.dtype, device=grad.device).index_add(d, at, g)


def _storage_positions(shape, stride, offset, device):
    """The storage position of each element of a (shape, stride, offset) view, flattened in C order."""
    pos = lm.full((), offset, dtype=_i64, device=device)
    for k, (n, s) in enumerate(zip(shape, stride)):
        pos = pos.unsqueeze(-1) + lm.arange(n, dtype=_i64, device=device) * s
    return pos.reshape(-1)


def as_strided_backward(grad, self, size, stride, storage_offset):
    """Each element of the view reads one storage position: its gradient goes to the element of self
    at that position (summed over repeats; positions outside self's elements get none)."""
    if grad.dtype.is_complex:
        parts = [as_strided_backward(p.contiguous(), self, size, stride, storage_offset)
                 for p in (lm.real(grad), lm.imag(grad))]
        return lm.complex(parts[0], parts[1])
    offset = self.storage_offset() if storage_offset is None else storage_offset
    read = _storage_positions(size, stride, offset, grad.device)
    mine = _storage_positions(tuple(self.shape), self.stride(), self.storage_offset(), grad.device)
    span = int(max(int(read.max()) if read.numel() else 0, int(mine.max()) if mine.numel() else 0)) + 1
    owner = lm.full((span,), -1, dtype=_i64, device=grad.device)
    owner[mine] = lm.arange(mine.numel(), dtype=_i64, device=grad.device)
    target = owner[read]
    keep = target >= 0
    out = lm.zeros(self.numel(), dtype=grad.dtype, device=grad.device)
    return out.index_add(0, target[keep], grad.reshape(-1)[keep]).reshape(tuple(self.shape))


def index_backward(grad, shape, indices):
    """Repeated indices read one element several times: their gradients add up."""
    if grad.dtype.is_complex:   # accumulated over the real (..., 2) view (the indices take leading dims)
        return lm.view_as_complex(index_backward(lm.view_as_real(grad.contiguous()), tuple(shape) + (2,), indices))
    return lm.zeros(tuple(shape), dtype=grad.dtype, device=grad.device).index_put_(indices, grad, True)


def sum_to_shape(grad, shape):
    return _sum_to(grad, tuple(shape))


def take_along_backward(grad, shape, dim, indices):
    """sort/topk: each output came from a distinct position along dim."""
    return lm.zeros(tuple(shape), dtype=grad.dtype, device=grad.device).scatter(dim, indices, grad)


def cumsum_backward(grad, dim):
    """The reverse running sum along dim: total - cumsum + grad."""
    if grad.ndim == 0:
        return grad
    return grad.sum(dim, keepdim=True) - grad.cumsum(dim) + grad


def embedding_backward(grad, shape, indices, padding_idx, scale_grad_by_freq):
    """Rows scatter-added by index; the padding row gets nothing. With scale_grad_by_freq each row's
    sum is divided by the number of times indices holds it (its count in this batch)."""
    n, d = shape
    flat = indices.reshape(-1)
    g = grad.reshape((-1, d))
    if padding_idx >= 0:
        g = lm.where((flat != padding_idx).unsqueeze(1), g, 0.0)
    if scale_grad_by_freq:
        ones = lm.ones(flat.shape, dtype=grad.dtype, device=grad.device)
        counts = lm.zeros((n,), dtype=grad.dtype, device=grad.device).index_add(0, flat, ones)
        g = g / counts.index_select(0, flat).unsqueeze(1)
    return lm.zeros((n, d), dtype=grad.dtype, device=grad.device).index_add(0, flat, g)


def _flip(x, dim):
    return x.index_select(dim, lm.arange(x.shape[dim] - 1, -1, -1, device=x.device))


def cumprod_backward(grad, self, dim, result):
    """d/dx_i of sum_j grad_j prod_{k<=j} x_k. Without zeros in self that is the reverse running
    sum of grad * result, over x_i; with zeros, the products leaving x_i out are built
    explicitly (n x n per row along dim), as dividing by 0 cannot."""
    if self.ndim == 0:
        return grad
    if not bool((self == 0).any()):
        return cumsum_backward(grad * result, dim) / self
    n = self.shape[dim]
    x = self.transpose(dim, -1)
    rows = x.unsqueeze(-2).expand([*x.shape[:-1], n, n])           # [..., i, k] = x_k
    prods = lm.where(lm.eye(n, dtype=_bool, device=x.device), 1, rows).cumprod(-1)  # prod over k <= j, k != i
    later = lm.arange(n, device=x.device).unsqueeze(0) >= lm.arange(n, device=x.device).unsqueeze(1)   # [i, j]: j >= i
    g = grad.transpose(dim, -1).unsqueeze(-2)
    return lm.where(later, g * prods, 0).sum(-1).transpose(dim, -1)


def cumextreme_backward(grad, shape, dim, indices):
    """cummax/cummin: each output's gradient goes to the position it was taken from."""
    if len(shape) == 0:
        return grad
    return lm.zeros(tuple(shape), dtype=grad.dtype, device=grad.device).scatter_add(dim, indices, grad)


def logcumsumexp_backward(grad, self, result, dim):
    """grad_i = sum_{j >= i} grad_j e^(x_i - out_j), summed in log space for the positive and the
    negative parts of grad separately (a reversed logcumsumexp each), so nothing overflows."""
    if self.ndim == 0:
        return grad

    def part(g):
        # -result only where g > 0: elsewhere -inf, never -inf - (-inf) (a result of -inf, where every
        # earlier input is -inf, comes back in the second derivative)
        logs = lm.where(g > 0, lm.where(g > 0, g, 1).log() - result, -float("inf"))
        return (_flip(_flip(logs, dim).logcumsumexp(dim), dim) + self).exp()
    return part(grad) - part(-grad)


def logcumsumexp_jvp(self_t, self, result, dim):
    """out_t_j = sum_{i <= j} t_i e^(x_i - out_j), in log space per sign of the tangent as the backward."""
    if self.ndim == 0:
        return self_t

    def part(t):
        logs = lm.where(t > 0, lm.where(t > 0, t, 1).log() + self, -float("inf"))
        return (logs.logcumsumexp(dim) - result).exp()
    return part(self_t) - part(-self_t)


def sinc_grad(self):
    """d/dx sin(pi x) / (pi x) away from 0 (the caller puts 0 there); 0 is replaced by 1 inside,
    so no NaN reaches the double backward."""
    x = lm.where(self == 0, 1.0, self)
    px = x * 3.141592653589793
    return (px * px.cos() - px.sin()) / (px * x)


def linalg_grad(name, *args):
    """The LAPACK ops' formulas, which live in linalg_formulas.py (the generator finds helpers
    only as functions defined in this file): linalg_grad("solve", ...) is its solve_backward."""
    return getattr(linalg_formulas, name + "_backward")(*args)


def sdpa_flash_grads(grad, query, key, value, output, logsumexp, is_causal, scale):
    """(d query, d key, d value) of sdpa_flash: its fused backward kernel, or, when the gradients must be
    differentiable again (create_graph), the math path's ops over the recomputed probabilities."""
    if not _grad_enabled():
        return lm.sdpa_flash_backward(grad, query, key, value, output, logsumexp, is_causal, scale)
    s = lm.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        L, S = query.shape[-2], key.shape[-2]
        s = s.masked_fill(lm.ones((L, S), device=s.device).tril() == 0, float("-inf"))
    p = lm.softmax(s, -1)
    dp = lm.matmul(grad, value.transpose(-2, -1))
    ds = p * (dp - (dp * p).sum(-1, keepdim=True)) * scale
    return lm.matmul(ds, key), lm.matmul(ds.transpose(-2, -1), query), lm.matmul(p.transpose(-2, -1), grad)


def lstm_gates_grads(grad_hy, grad_cy, gates, cx, cy):
    """(d gates, d cx) of lstm_gates: its backward kernel, or (create_graph) the same maths in loom ops.
    An output that received no gradient counts as zeros."""
    grad_hy = lm.zeros_like(cx) if grad_hy is None else grad_hy
    grad_cy = lm.zeros_like(cx) if grad_cy is None else grad_cy
    if not _grad_enabled():
        return lm.lstm_gates_backward(grad_hy, grad_cy, gates, cx, cy)
    i, f, g, o = gates.chunk(4, -1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    tc = cy.tanh()
    dc = grad_cy + grad_hy * o * (1 - tc * tc)
    dgates = lm.cat([dc * g * i * (1 - i), dc * cx * f * (1 - f), dc * i * (1 - g * g),
                     grad_hy * tc * o * (1 - o)], -1)
    return dgates, dc * f


def native_layer_norm_grads(grad, input, normalized_shape, mean, rstd, weight, bias, eps, mask):
    """(d input, d weight, d bias) of native_layer_norm: its backward kernel, or (create_graph) the
    same maths in loom ops with the statistics recomputed from input, so that they have a graph."""
    if grad.dtype != input.dtype:   # a cotangent of another float dtype, which PyTorch's engine casts
        grad = grad.to(input.dtype)
    if not _grad_enabled():
        grads = lm.native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight, bias,
                                              mask[0], mask[1] and weight is not None, mask[2] and bias is not None)
        return tuple(g if m and (k == 0 or w is not None) else None
                     for k, (g, m, w) in enumerate(zip(grads, mask, (input, weight, bias))))
    dims = list(range(input.ndim - len(normalized_shape), input.ndim))
    lead = list(range(input.ndim - len(normalized_shape)))
    xc = input - input.mean(dims, keepdim=True)
    rs = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
    xhat = xc * rs
    g = grad if weight is None else grad * weight
    dx = rs * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True)) if mask[0] else None
    dw = db = None
    if mask[1] and weight is not None:
        dw = (grad * xhat).sum(lead) if lead else grad * xhat
    if mask[2] and bias is not None:
        db = grad.sum(lead) if lead else grad
    return dx, dw, db


def batch_norm_train_grads(grad, input, mean, invstd, weight, bias, eps, mask):
    """(d input, d weight, d bias) of _batch_norm_train: its backward kernel, or (create_graph) the
    same maths in loom ops with the statistics recomputed from input, so that they have a graph."""
    if grad.dtype != input.dtype:   # a cotangent of another float dtype, which PyTorch's engine casts
        grad = grad.to(input.dtype)
    if not _grad_enabled():
        grads = lm._batch_norm_train_backward(grad, input, mean, invstd, weight, mask[0],
                                              mask[1] and weight is not None, mask[2] and bias is not None)
        return tuple(g if m and (k == 0 or w is not None) else None
                     for k, (g, m, w) in enumerate(zip(grads, mask, (input, weight, bias))))
    dims = [0] + list(range(2, input.ndim))
    shape = [1, -1] + [1] * (input.ndim - 2)
    xc = input - input.mean(dims, keepdim=True)
    rs = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
    xhat = xc * rs
    g = grad if weight is None else grad * weight.reshape(shape)
    dx = rs * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True)) if mask[0] else None
    dw = (grad * xhat).sum(dims) if mask[1] and weight is not None else None
    db = grad.sum(dims) if mask[2] and bias is not None else None
    return dx, dw, db


def lstm_layer_grads(grad_output, grad_cells, x_proj, h0, c0, w_hh, b_hh, reverse, output, cells, gates, mask):
    """(d x_proj, d h0, d c0, d w_hh, d b_hh) of _lstm_layer: its backward kernel, or (create_graph)
    the same recurrence in loom ops over gates recomputed from the inputs, so it has a graph."""
    if not _grad_enabled():
        grads = lm._lstm_layer_backward(grad_output, grad_cells, h0, c0, w_hh, output, cells, gates, reverse)
    else:
        grads = _lstm_layer_grads_ops(grad_output, grad_cells, x_proj, h0, c0, w_hh, b_hh, reverse)
    return tuple(g if m else None for g, m in zip(grads, mask))


def _lstm_layer_grads_ops(grad_output, grad_cells, x_proj, h0, c0, w_hh, b_hh, reverse):
    T = x_proj.shape[0]
    steps, h, c = [], h0, c0
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        g = x_proj[t] + lm.linear(h, w_hh, b_hh)
        h_new, c_new = lm.lstm_gates(g, c)
        steps.append((t, g, h, c, c_new))
        h, c = h_new, c_new
    dh, dc, dw, db, dx = lm.zeros_like(h0), lm.zeros_like(c0), lm.zeros_like(w_hh), None, [None] * T
    for t, g, h_prev, c_prev, c_t in reversed(steps):
        dh_t = dh if grad_output is None else dh + grad_output[t]
        dc_t = dc if grad_cells is None else dc + grad_cells[t]
        dg, dc = lstm_gates_grads(dh_t, dc_t, g, c_prev, c_t)
        dh = lm.matmul(dg, w_hh)
        dw = dw + lm.matmul(dg.transpose(0, 1), h_prev)
        db = dg.sum(0) if db is None else db + dg.sum(0)
        dx[t] = dg
    return lm.stack(dx) if T else lm.zeros_like(x_proj), dh, dc, dw, db


def singular_grad(name, *args):
    """Formulas that meet a division by zero at some inputs (prod, pow, atan2), which live in
    singular_formulas.py (the generator finds helpers in this file only)."""
    return getattr(singular_formulas, name + "_backward")(*args)


# ---- complex: PyTorch's convention (grad = dL/dx + i dL/dy), derivatives/complex.yaml
def angle_backward(grad, self):
    if not self.dtype.is_complex:
        return lm.zeros_like(self)
    g = grad * self / (self.abs() * self.abs()) * 1j
    return lm.where(self == 0, lm.zeros_like(g), g)


def sgn_backward(grad, self, result):
    if not self.dtype.is_complex:
        return lm.zeros_like(self)
    r = self.abs()
    g = (grad - lm.real(grad * conj(result)) * result) / r
    return lm.where(r == 0, lm.zeros_like(g), g)


def angle_forward(self_t, self):
    """d arg z = Im(dz / z) (0 at 0); a real number's angle is constant."""
    if not self.dtype.is_complex:
        return lm.zeros_like(self_t) * self_t
    r = self.abs()
    t = lm.imag(self_t / lm.where(r == 0, lm.ones_like(self), self))
    return lm.where(r == 0, lm.zeros_like(t), t)


def sgn_forward(self_t, self, result):
    """d (z/|z|) = (dz - s Re(conj(s) dz)) / |z| (0 at 0); a real sign is constant."""
    if not self.dtype.is_complex:
        return lm.zeros_like(self_t) * self_t
    r = self.abs()
    t = (self_t - lm.real(self_t * conj(result)) * result) / lm.where(r == 0, lm.ones_like(r), r)
    return lm.where(r == 0, lm.zeros_like(t), t)


def real_backward(grad, self):
    return grad.to(self.dtype) if self.dtype.is_complex else grad


def imag_backward(grad):
    return grad * 1j


# ---- FFTs (derivatives/fft.yaml): the adjoints of the three kernels
def fft_r2c_backward(grad, dim, normalization, onesided, shape):
    """grad (onesided: zero-padded to the full length along the last of dim) through the inverse
    complex transform; the engine keeps its real part for the real input."""
    if onesided:
        last = dim[-1] % len(shape)
        pad = shape[last] - grad.shape[last]
        if pad > 0:
            zeros = lm.zeros(tuple(pad if k == last else s for k, s in enumerate(grad.shape)), dtype=grad.dtype)
            grad = lm.cat([grad, zeros], last)
    return lm._fft_c2c(grad, dim, normalization, False)


def fft_c2r_backward(grad, dim, normalization):
    """The real transform of grad, onesided, its entries that stand for two (k and n - k) doubled."""
    g = lm._fft_r2c(grad, dim, normalization, True)
    last = dim[-1] % grad.ndim
    n, kept = grad.shape[last], g.shape[last]
    if n - kept > 0:
        w = lm.ones(kept, dtype=_f64 if g.dtype.itemsize == 16 else _f32)
        w[1:n - kept + 1] = 2
        g = g * w.reshape(tuple(kept if k == last else 1 for k in range(g.ndim)))
    return g
