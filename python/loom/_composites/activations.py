"""Composite ops of ops/activations.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/activations.yaml names it with
`composite: true`."""
import builtins as _b

from .. import _ops


def gelu(self, approximate):
    if not self.dtype.is_floating_point:
        raise TypeError(f"not implemented for dtype {self.dtype.name}")
    if approximate == "none":
        return _ops.gelu_erf(self)
    if approximate == "tanh":
        return _ops.gelu_tanh(self)
    raise ValueError(f"approximate argument must be either none or tanh, got {approximate!r}")


def dropout(input, p, train):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0.0:
        return input
    if p == 1.0:
        return input * 0
    keep = _ops.rand_like(input) >= p   # which uint16/32/64 refuse, as PyTorch's bernoulli_
    return input * (keep * (1.0 / (1.0 - p))).to(input.dtype)


def var(self, dim, correction, keepdim):
    c = 1 if correction is None else correction
    dims = [dim] if isinstance(dim, int) else list(range(self.ndim)) if not dim else list(dim)
    s = None
    if self.ndim and self.numel():
        # squares of values near the largest float overflow: work on self / 2^k, k = floor(log2(max |x|))
        # (a power of two: exact, so other inputs give the same bits) and scale the result back
        m = self.detach().abs().amax(dims, keepdim=True)   # also checks dim before self.shape[d] below
        s = _ops.where(_ops.isfinite(m) & (m > 0), _ops.exp2(_ops.floor(_ops.log2(m))), 1.0)
    xs = self if s is None else self / s
    xc = xs - xs.mean(dim, keepdim=True)
    n = 1
    for d in dims:
        n *= self.shape[d] if self.ndim else 1
    sq = xc.real * xc.real + xc.imag * xc.imag if xc.dtype.is_complex else xc * xc   # (complex: |x - mean|^2, real)
    v = sq.sum(dim, keepdim=keepdim) / _b.max(n - c, 0)
    if s is None:
        return v
    s = s.amax(dims, keepdim=keepdim)   # s * s can overflow where the variance does not
    return v * s * s


def std(self, dim, correction, keepdim):
    s = 1.0
    if self.ndim and self.numel():
        # var of self / 2^k (exact), its root scaled back: no overflow where std fits but var does not
        dims = [dim] if isinstance(dim, int) else list(range(self.ndim)) if not dim else list(dim)
        m = self.detach().abs().amax(dims, keepdim=True)
        s = _ops.where(_ops.isfinite(m) & (m > 0), _ops.exp2(_ops.floor(_ops.log2(m))), 1.0)
        self, s = self / s, s.amax(dims, keepdim=keepdim)
    v = _ops.var(self, dim, correction=correction, keepdim=keepdim)
    # sqrt's gradient is infinite at 0: where the variance is 0 (a constant input), take the root
    # of 1 instead and drop it, so the gradient is 0 there (PyTorch's std_backward) and finite at any order
    nonzero = v != 0
    return _ops.where(nonzero, _ops.where(nonzero, v, 1).sqrt(), 0) * s


def var_unbiased(self, dim, unbiased, keepdim):
    return _ops.var(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def std_unbiased(self, dim, unbiased, keepdim):
    return _ops.std(self, dim, correction=1 if unbiased else 0, keepdim=keepdim)


def cross_entropy(self, target, weight, reduction, ignore_index, label_smoothing):
    if self.ndim == 0:
        raise ValueError("input must be at least 1-D (C,) or (N, C, ...), got 0-D")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    cdim = 0 if self.ndim == 1 else 1
    C = self.shape[cdim]
    lsm = _ops.log_softmax(self, cdim)
    wshape = [C] + [1] * (self.ndim - 1 - cdim)
    if target.dtype.is_floating_point and tuple(target.shape) == tuple(self.shape):   # class probabilities
        t = target if label_smoothing == 0.0 else target * (1.0 - label_smoothing) + label_smoothing / C
        prod = lsm * t if weight is None else lsm * t * weight.reshape(wshape)
        loss = -prod.sum(cdim)
        if reduction == "mean":
            return loss.sum() / _b.max(self.numel() // _b.max(C, 1), 1)
        return _ops.reduce_loss(loss, reduction)
    nll = _ops.nll_loss(lsm, target, weight, reduction, ignore_index)
    if label_smoothing == 0.0:
        return nll
    smooth = -(lsm if weight is None else lsm * weight.reshape(wshape)).sum(cdim) * (target != ignore_index)
    if reduction == "mean":   # normalised by the same total weight nll_loss divides by
        smooth = smooth.sum() / _ops.nll_loss(_ops.full_like(lsm, -1.0), target, weight, "sum", ignore_index)
    else:
        smooth = _ops.reduce_loss(smooth, reduction)
    return nll * (1.0 - label_smoothing) + smooth * (label_smoothing / C)


def mse_loss(self, target, reduction):
    d = self - target
    return _ops.reduce_loss(d * d, reduction)


def l1_loss(self, target, reduction):
    return _ops.reduce_loss((self - target).abs(), reduction)


def binary_cross_entropy(self, target, weight, reduction):
    if tuple(target.shape) != tuple(self.shape):
        raise ValueError(f"Using a target size ({list(target.shape)}) that is different to the input size "
                         f"({list(self.shape)}) is deprecated. Please ensure they have the same size.")
    if not self.is_meta and not bool(((self >= 0) & (self <= 1)).all()):   # NaN fails both comparisons
        raise ValueError("all elements of input should be between 0 and 1")
    if weight is not None:   # PyTorch's kernel has no weight gradient: refused, not computed through `*`
        _ops._check_no_requires_grad(weight, "binary_cross_entropy", "weight")
    # PyTorch's gradient is (x - t) / max(x (1 - x), 1e-12): finite at 0 and 1, where the logs' is not.
    # Where x (1 - x) >= 1e-12 the formula below has it (and its higher derivatives); elsewhere the
    # value comes from the clamped logs and the gradient from that expression, taken as constants
    # (the formula's branch then sees x = 0.5, so no infinity meets the mask's zero)
    x, t = self.detach(), target.detach()
    inside = x * (1 - x) >= 1e-12
    xs = _ops.where(inside, self, 0.5)
    exact = -(target * xs.log().clamp(min=-100) + (1 - target) * (1 - xs).log().clamp(min=-100))
    lx, l1x = x.log().clamp(min=-100), (1 - x).log().clamp(min=-100)
    edge = -(target * lx + (1 - target) * l1x) + (x - t) / (x * (1 - x)).clamp(min=1e-12) * (self - x)
    loss = _ops.where(inside, exact, edge)
    return _ops.reduce_loss(loss if weight is None else loss * weight, reduction)


def binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction):
    if tuple(target.shape) != tuple(self.shape):
        raise ValueError(f"Target size ({list(target.shape)}) must be the same as input size ({list(self.shape)})")
    for w, name in ((weight, "weight"), (pos_weight, "pos_weight")):   # as binary_cross_entropy's weight
        if w is not None:
            _ops._check_no_requires_grad(w, "binary_cross_entropy_with_logits", name)
    sp = _ops.softplus(-self)
    loss = (1 - target) * self + (sp if pos_weight is None else (1 + (pos_weight - 1) * target) * sp)
    return _ops.reduce_loss(loss if weight is None else loss * weight, reduction)


def reduce_loss(self, reduction):
    if reduction == "mean":
        return self.mean()
    if reduction == "sum":
        return self.sum()
    if reduction == "none":
        return self
    raise ValueError(f"{reduction} is not a valid value for reduction (use 'none', 'mean' or 'sum')")


def relu6(self):
    # where, not clamp: the gradient is 0 at the kinks 0 and 6 (PyTorch's hardtanh), clamp's passes it
    lo, hi = (0, 6) if self.dtype.category == "integral" else (0.0, 6.0)   # ints stay ints, as PyTorch's
    return _ops.where(self <= 0, lo, _ops.where(self >= 6, hi, self))


def hardsigmoid(self):
    # where, not clamp: the gradient is 0 at the kinks -3 and 3, as PyTorch's
    return _ops.where(self <= -3, 0.0, _ops.where(self >= 3, 1.0, self / 6 + 0.5))


def hardswish(self):
    # PyTorch's gradient at the kinks: 0 at -3, 1 at 3
    return _ops.where(self <= -3, self * 0.0, _ops.where(self >= 3, self, self * (self / 6 + 0.5)))   # -inf * 0: NaN as PyTorch


def mish(self):
    return self * _ops.tanh(_ops.softplus(self))


def logsigmoid(self):
    return -_ops.softplus(-self)


def softsign(self):
    return self / (self.abs() + 1)


def tanhshrink(self):
    return self - _ops.tanh(self)


def glu(self, dim):
    if self.ndim == 0:
        raise ValueError("glu does not support scalars because halving size must be even")
    d = dim + self.ndim if dim < 0 else dim
    if not 0 <= d < self.ndim:   # narrow raises PyTorch's "Dimension out of range" (an IndexError and RuntimeError)
        _ops.narrow(self, dim, 0, 0)
    n = self.shape[d]
    if n % 2:
        raise ValueError(f"Halving dimension must be even, but dimension {d} is size {n}")
    return _ops.narrow(self, d, 0, n // 2) * _ops.sigmoid(_ops.narrow(self, d, n // 2, n // 2))


def prelu(self, weight):
    C = self.shape[1] if self.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != C:
        raise ValueError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                         f"{weight.numel()} and channel size = {C}.")
    w = weight.reshape([-1] + [1] * (self.ndim - 2)) if self.ndim >= 2 and weight.numel() > 1 else weight.reshape([])
    return _ops.where(self > 0, self, self * w)


def smooth_l1_loss(self, target, reduction, beta):
    if beta < 0:
        raise ValueError("smooth_l1_loss does not support negative values for beta.")
    d = (self - target).abs()
    if beta == 0:
        return _ops.reduce_loss(d, reduction)
    return _ops.reduce_loss(_ops.where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta), reduction)


def huber_loss(self, target, reduction, delta):
    if delta <= 0:
        raise ValueError("huber_loss does not support non-positive values for delta.")
    d = (self - target).abs()
    return _ops.reduce_loss(_ops.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta), reduction)


def kl_div(self, target, reduction, log_target):
    if log_target:
        loss = target.exp() * (target - self)
    else:   # target * log(target) taken as 0 where target is 0 (xlogy), with a finite gradient there
        pos = target > 0
        loss = _ops.where(pos, target * _ops.where(pos, target, 1).log(), 0) - target * self
    if reduction == "batchmean":
        return loss.sum() / self.shape[0] if self.ndim else loss.sum()
    return _ops.reduce_loss(loss, reduction)


def cosine_similarity(x1, x2, dim, eps):
    # PyTorch clamps the norms' values only (in place, without grad): the gradient still flows
    # through each norm, which is 0 at a zero vector
    n1 = _ops.linalg_vector_norm(x1, 2, [dim], True)
    n2 = _ops.linalg_vector_norm(x2, 2, [dim], True)
    n1 = n1 + (n1.clamp(min=eps) - n1).detach()
    n2 = n2 + (n2.clamp(min=eps) - n2).detach()
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p, eps, keepdim):
    d = x1 - x2 + eps
    if d.ndim == 0:
        raise ValueError("pairwise_distance: expected at least 1-D inputs, got 0-D")
    a = d.abs()
    if d.dtype.is_complex:   # the distance of the moduli (d * d is not |d|^2): real, as PyTorch's
        d = a
    if p == 2:
        return (d * d).sum(-1, keepdim=keepdim).sqrt()
    if p == 1:
        return a.sum(-1, keepdim=keepdim)
    if p == float("inf"):
        return a.amax(-1, keepdim=keepdim)
    if p == float("-inf"):
        return a.amin(-1, keepdim=keepdim)
    if p == 0:
        return (d != 0).to(d.dtype).sum(-1, keepdim=keepdim)
    return (a ** p).sum(-1, keepdim=keepdim) ** (1.0 / p)


def normalize(self, p, dim, eps):
    # linalg_vector_norm's gradient is 0 at a zero vector (PyTorch's norm_backward), not NaN
    return self / _ops.linalg_vector_norm(self, p, [dim], True).clamp(min=eps)
