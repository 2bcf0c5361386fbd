"""More of torch.nn.functional on loom's ops: the remaining activations (hardtanh, selu, celu, softmin,
softshrink, hardshrink, threshold, rrelu, gumbel_softmax and the in-place `_` forms), the margin and
likelihood losses, feature and alpha dropout, rms_norm, bilinear, local_response_norm, pdist, fold/unfold,
channel_shuffle, lp_pool1d/2d and max_unpool1d/2d. As in functional.py, each function adapts arguments
and checks them with PyTorch's messages; the arithmetic (and so the gradient) is the ops'."""
import math
import warnings

import numpy as np

from .._args import takes_tensors, _scalar, _type_error
from .. import _ops as _L
from .._dtype import int64
from .._dtype_info import finfo
from .._numpy import tensor
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ._factory import ntuple

__all__ = ["hardtanh", "hardtanh_", "relu_", "elu_", "leaky_relu_", "selu", "selu_", "celu", "celu_", "softmin",
           "softshrink", "hardshrink", "threshold", "threshold_", "rrelu", "rrelu_", "gumbel_softmax",
           "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "poisson_nll_loss", "gaussian_nll_loss", "dropout1d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", "rms_norm", "bilinear", "local_response_norm", "pdist",
           "unfold", "fold", "channel_shuffle", "native_channel_shuffle", "lp_pool1d", "lp_pool2d", "max_unpool1d",
           "max_unpool2d"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _inplace(fn, input, *args):
    """An in-place form without an in-place op: fn's result written into input. fn reads a copy when autograd
    records, so that what its backward saved is not the tensor the write then changes."""
    return input.copy_(fn(input.clone() if input.requires_grad else input, *args))


# ---- activations ----
@takes_tensors("input", min_val="Number", max_val="Number")
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """min_val below min_val, max_val above max_val, x between; the gradient is 0 at and beyond the kinks."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    # where, not clamp: PyTorch's hardtanh passes no gradient at x == min_val or max_val (NaN stays NaN)
    if inplace:
        return _inplace(hardtanh, input, min_val, max_val)
    return _L.where(input <= min_val, float(min_val), _L.where(input >= max_val, float(max_val), input))


@takes_tensors("input", min_val="Number", max_val="Number")
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


@takes_tensors("input")
def relu_(input):
    return input.relu_()


@takes_tensors("input")
def elu_(input, alpha=1.0):
    return input.elu_(alpha)


@takes_tensors("input")
def leaky_relu_(input, negative_slope=0.01):
    return input.leaky_relu_(negative_slope)


@takes_tensors("input")
def selu(input, inplace=False):
    if inplace:
        return _inplace(selu, input)
    return _L.elu(input, _SELU_ALPHA) * _SELU_SCALE


@takes_tensors("input")
def selu_(input):
    return selu(input, inplace=True)


@takes_tensors("input", alpha="Number")
def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    # exp of the clamped value: the positive side's exp cannot overflow into the gradient (inf * 0)
    if inplace:
        return _inplace(celu, input, alpha)
    return _L.where(input > 0, input, _L.expm1(input.clamp_max(0) / alpha) * alpha)


@takes_tensors("input", alpha="Number")
def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  f"an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


@takes_tensors("input", dim="int", _stacklevel="int", dtype="ScalarType")
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim, _stacklevel)
    return _L.softmax(-input, dim, dtype)


_DTYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double"}


@takes_tensors("input", lambd="Number")
def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between (NaN stays NaN)."""
    if isinstance(input, Tensor) and input.dtype.name in _DTYPE_NAMES:
        top = finfo(input.dtype).max
        if not 0 <= lambd <= top:
            raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {_DTYPE_NAMES[input.dtype.name]}, "
                               f"but found {lambd:g}")
    return _L.where(input > lambd, input - lambd, _L.where(input < -lambd, input + lambd, input * 0))


@takes_tensors("input", lambd="Number")
def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0 (NaN stays NaN)."""
    return _L.where((input >= -lambd) & (input <= lambd), 0.0, input)


def _threshold(input, threshold, value, inplace=False):
    """value where x <= threshold, else x (NaN stays NaN, as PyTorch)."""
    if inplace:
        return _inplace(_threshold, input, threshold, value)
    return _L.where(input <= threshold, float(value), input)


@takes_tensors("input", threshold="float", value="float")
def threshold(input, threshold, value, inplace=False):
    _scalar(threshold, "threshold", "threshold"), _scalar(value, "threshold", "value")
    return _threshold(input, threshold, value, inplace)


@takes_tensors("input")
def threshold_(input, threshold, value):
    _scalar(threshold, "threshold_", "threshold"), _scalar(value, "threshold_", "value")
    return _threshold(input, threshold, value, inplace=True)


@takes_tensors("input", lower="float", upper="float")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each negative element is scaled by its own U(lower, upper) draw;
    otherwise by the mean slope (lower + upper) / 2."""
    if inplace:
        return _inplace(rrelu, input, lower, upper, training)
    if training:
        if lower > upper:
            raise RuntimeError("Lower bound should be less than or equal to the upper bound")
        slope = _L.rand_like(input) * (upper - lower) + lower
        return _L.where(input >= 0, input, input * slope)
    return _L.leaky_relu(input, (lower + upper) / 2)


@takes_tensors("input", lower="float", upper="float")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


@takes_tensors("logits", tau="float", eps="float", dim="int")
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + Gumbel(0, 1) noise) / tau); hard=True returns the one-hot of the argmax with the soft
    sample's gradient (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_L.empty_like(logits).exponential_().log()
    y_soft = _L.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _L.scatter(_L.zeros_like(logits), dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---- losses ----
def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's legacy (size_average, reduce) pair, when given, overrides reduction (with its warning)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  stacklevel=3)
    return reduction


def _check_reduction(reduction, message="{} is not a valid value for reduction"):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(message.format(reduction))


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


@takes_tensors("input1", "input2", "target", margin="float", reduction="str")
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@takes_tensors("input", "target", margin="float", reduction="str")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x where target is 1, max(0, margin - x) where target is -1 (PyTorch's ATen formula)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    zeros = _L.zeros_like(input)
    output_margin = _L.where(target != 1, (margin - input).clamp_min(0), zeros)
    output_self = _L.where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, reduction)


@takes_tensors("input1", "input2", "target", margin="float", reduction="str")
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where target is -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    d = target.ndim
    if d not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if d == 1 and not (input1.ndim == 2 and input2.ndim == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if d == 0 and not (input1.ndim == 1 and input2.ndim == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12
    prod_sum = (input1 * input2).sum(d)
    mag1 = (input1 * input1).sum(d) + eps
    mag2 = (input2 * input2).sum(d) + eps
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = _L.zeros_like(cos)
    out = _L.where(target == 1, 1 - cos, zeros) + _L.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(out, reduction)


@takes_tensors("input", "target", reduction="str")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input))."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _reduce(_L.log1p(_L.exp(-input * target)), reduction)


@takes_tensors("input", "target", "weight", reduction="str")
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * _L.logsigmoid(input) + (1 - target) * _L.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    _check_reduction(reduction, "{} is not valid")
    return _reduce(loss, reduction)


@takes_tensors("input", "target", "weight", p="int", margin="float", reduction="str")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """sum over i != y of max(0, margin - x[y] + x[i]) ** p (times weight[y]), divided by the class count."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0) or input.numel() == 0 and input.ndim < 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    n, c = x.shape
    if target.ndim > 1 or target.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(target.shape)}. Input "
                           f"has shape {list(input.shape)}.")
    t = target.reshape(-1, 1).to(int64)
    tn = t.numpy()
    if tn.size and (tn.min() < 0 or tn.max() >= c):
        raise RuntimeError("target out of range")
    z = (margin - _L.gather(x, 1, t) + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * _L.index_select(weight, 0, t.reshape(-1)).reshape(-1, 1)
    z = z.masked_fill(_L.one_hot(t.reshape(-1), c).to(input.device) != 0, 0.0)
    loss = z.sum(1) / c
    if input.ndim < 2 and reduction == "none":
        loss = loss.reshape(target.shape)
    return _reduce(loss, reduction)


@takes_tensors("input", "target", reduction="str")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each sample, sum over its target classes j (target's leading entries up to the first -1) and the
    other classes i of max(0, 1 - (x[j] - x[i])), divided by the class count."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0) or input.numel() == 0 and input.ndim < 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    if target.dtype != int64:
        raise RuntimeError(f"expected scalar type Long but found {_DTYPE_NAMES.get(target.dtype.name, target.dtype.name)}")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    c = x.shape[1]
    tn = target.reshape(x.shape).numpy()
    if tn.size and (tn.min() < -1 or tn.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    valid = np.cumprod(tn >= 0, axis=1).astype(bool)                  # the entries before the first -1
    idx = np.where(valid, tn, 0)
    is_target = np.zeros(x.shape, dtype=bool)
    rows = np.broadcast_to(np.arange(x.shape[0])[:, None], idx.shape)
    is_target[rows[valid], idx[valid]] = True
    # (N, J, C): pairs (target j, non-target i)
    pair_mask = valid[:, :, None] & ~is_target[:, None, :]
    x_y = _L.gather(x, 1, tensor(idx).to(input.device))
    z = (1 - x_y.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)
    z = z * tensor(pair_mask.astype(np.float64)).to(dtype=input.dtype, device=input.device)
    loss = z.sum((1, 2)) / c
    if input.ndim < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


@takes_tensors("anchor", "positive", "negative", margin="float", p="float", eps="float", reduction="str")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)) with d the p-norm pairwise distance (swap: d(a, n) = min(d(a, n), d(p, n)))."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    dist_pos = _L.pairwise_distance(anchor, positive, p, eps)
    dist_neg = _L.pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = _L.minimum(dist_neg, _L.pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


@takes_tensors("anchor", "positive", "negative")
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    if distance_function is None:
        distance_function = _L.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = _L.minimum(dist_neg, distance_function(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


@takes_tensors("input", "target", eps="float", reduction="str")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """exp(input) - target * input (log_input), else input - target * log(input + eps); full adds Stirling's
    term target * log(target) - target + log(2 pi target) / 2 where target > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = _L.exp(input) - target * input
    else:
        loss = input - target * _L.log(input + eps)
    if full:
        stirling = target * _L.log(target) - target + 0.5 * _L.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


@takes_tensors("input", "target", eps="float", reduction="str")
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """(log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2 (+ log(2 pi) / 2 when full); var may be
    one dim short of input, or differ in one dim of size 1 (homoscedastic)."""
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _L.ones_like(input) * var
    elif not isinstance(var, Tensor):
        _type_error("gaussian_nll_loss", "var", "Tensor or float", var)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    _check_reduction(reduction, "{} is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (_L.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# ---- dropout ----
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


_ALPHA = 1.7580993408473766   # -SELU's scale * alpha: the value SELU saturates to


def _dropout_impl(input, p, training, inplace, feature, alpha):
    """PyTorch's _dropout_impl: feature drops whole channels (dims 0 and 1 draw, the rest broadcast); alpha keeps
    the mean and variance of SELU activations (dropped entries become -alpha', all rescaled)."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if inplace:
        return _inplace(_dropout_impl, input, p, training, False, feature, alpha)
    if p == 1:
        return input * 0.0
    shape = list(input.shape[:2]) + [1] * (input.ndim - 2) if feature else list(input.shape)
    keep = (_L.rand(shape, dtype=input.dtype, device=input.device) >= p).to(input.dtype)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = (keep - 1) * (_ALPHA * a) + _ALPHA * a * p
        return input * (keep * a) + b
    return input * (keep * (1.0 / (1.0 - p)))


def _feature_dropout(input, p, training, inplace, batched):
    if batched:
        return _dropout_impl(input, p, training, inplace, True, False)
    if p == 0 or not training or input.numel() == 0:
        return input
    if inplace:
        return _inplace(_feature_dropout, input, p, training, False, False)
    return _dropout_impl(input.unsqueeze(0), p, training, False, True, False).squeeze(0)


@takes_tensors("input", p="float")
def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or unbatched (C, L) with probability p, scaling the rest by 1 / (1 - p)."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, input.ndim == 3)


@takes_tensors("input", p="float")
def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or unbatched (C, D, H, W) with probability p."""
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will result "
                      "in an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, input.ndim == 5)


@takes_tensors("input", p="float")
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, False, True)


@takes_tensors("input", p="float")
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, True, True)


# ---- normalisation and products ----
@takes_tensors("input", "weight", normalized_shape="int[]", eps="float")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2 over the trailing normalized_shape dims) + eps) * weight; eps None: the dtype's eps."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    k = len(shape)
    if k == 0 or input.ndim < k or list(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if eps is None:
        eps = finfo(input.dtype).eps
    dims = tuple(range(-k, 0))
    out = input * _L.rsqrt((input * input).mean(dims, keepdim=True) + eps)
    return out if weight is None else out * weight


@takes_tensors("input1", "input2", "weight", "bias")
def bilinear(input1, input2, weight, bias=None):
    """y = x1^T A x2 + b over the last dims: weight (out, in1, in2), leading dims broadcast-free (equal)."""
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[-1] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but expected "
                           f"{weight.shape[0]}")
    out = _L.einsum("...i,oij,...j->...o", [input1, weight, input2])
    return out if bias is None else out + bias


@takes_tensors("input", size="int", alpha="float", beta="float", k="float")
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels) ** beta."""
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    sizes = list(input.shape)
    div = (input * input).reshape(sizes[0], 1, sizes[1], -1)   # PyTorch's avg_pool3d over (size, 1, 1), as 2-D
    div = _L.pad(div, [0, 0, size // 2, (size - 1) // 2])
    div = _L.avg_pool2d(div, [size, 1], [1, 1]).reshape(sizes)
    return input / (div * alpha + k).pow(beta)


@takes_tensors("input", p="float")
def pdist(input, p=2):
    """The p-norm distances between the rows of an (N, M) input, i < j in row-major order: N * (N - 1) / 2."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    if i.size == 0:
        return _L.zeros([0], dtype=input.dtype, device=input.device)
    ii, jj = tensor(i.astype(np.int64)).to(input.device), tensor(j.astype(np.int64)).to(input.device)
    diff = _L.index_select(input, 0, ii) - _L.index_select(input, 0, jj)
    return _L.linalg_vector_norm(diff, float(p), -1)


# ---- im2col / col2im ----
def _block_index(h, w, kernel_size, dilation, padding, stride):
    """Flat positions in the (h + 2 pad) x (w + 2 pad) padded image of each kernel offset (rows) and each
    sliding block (columns), and the block grid's shape."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    hp, wp = h + 2 * ph, w + 2 * pw
    oh = (hp - (dh * (kh - 1) + 1)) // sh + 1
    ow = (wp - (dw * (kw - 1) + 1)) // sw + 1
    ki, kj = np.meshgrid(np.arange(kh) * dh, np.arange(kw) * dw, indexing="ij")
    bi, bj = np.meshgrid(np.arange(max(oh, 0)) * sh, np.arange(max(ow, 0)) * sw, indexing="ij")
    rows = ki.reshape(-1, 1) + bi.reshape(1, -1)
    cols = kj.reshape(-1, 1) + bj.reshape(1, -1)
    return (rows * wp + cols).reshape(-1).astype(np.int64), oh, ow, hp, wp


def _pair4(kernel_size, dilation, padding, stride):
    return [ntuple(v, 2) for v in (kernel_size, dilation, padding, stride)]


@takes_tensors("input", kernel_size="int[]", dilation="int[]", padding="int[]", stride="int[]")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * kh * kw, L), column l holding the l-th sliding block (row-major)."""
    if input.ndim not in (3, 4) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    if input.ndim == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    kernel_size, dilation, padding, stride = _pair4(kernel_size, dilation, padding, stride)
    n, c, h, w = input.shape
    idx, oh, ow, hp, wp = _block_index(h, w, kernel_size, dilation, padding, stride)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={kernel_size}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding blocks "
                           f"as ({oh}, {ow}), but its components must be at least one.")
    x = _L.pad(input, [padding[1], padding[1], padding[0], padding[0]]) if any(padding) else input
    cols = _L.index_select(x.reshape(n, c, hp * wp), 2, tensor(idx).to(input.device))
    return cols.reshape(n, c * kernel_size[0] * kernel_size[1], oh * ow)


@takes_tensors("input", output_size="int[]", kernel_size="int[]", dilation="int[]", padding="int[]", stride="int[]")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, unfold's adjoint: (N, C * kh * kw, L) -> (N, C, H, W), overlapping blocks summed."""
    if input.ndim not in (2, 3) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    if input.ndim == 2:
        return fold(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)
    output_size = ntuple(output_size, 2)
    kernel_size, dilation, padding, stride = _pair4(kernel_size, dilation, padding, stride)
    k = kernel_size[0] * kernel_size[1]
    n, ck, length = input.shape
    if ck % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={ck} and kernel_size={kernel_size}.")
    idx, oh, ow, hp, wp = _block_index(output_size[0], output_size[1], kernel_size, dilation, padding, stride)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, calculated shape of the array of sliding blocks as "
                           f"({oh}, {ow}), but its components must be at least one.")
    if length != oh * ow:
        raise RuntimeError(f"Given output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
                           f"input.size(2)={length}.")
    c = ck // k
    out = _L.zeros([n, c, hp * wp], dtype=input.dtype, device=input.device)
    out = _L.index_add(out, 2, tensor(idx).to(input.device), input.reshape(n, c, k * length))
    out = out.reshape(n, c, hp, wp)
    (ph, pw), (h, w) = padding, output_size
    return out[:, :, ph:ph + h, pw:pw + w] if ph or pw else out


# ---- channels and pooling ----
@takes_tensors("input", groups="int")
def channel_shuffle(input, groups):
    """(N, C, *) -> channels regrouped: (N, groups, C / groups, *) transposed to (N, C / groups, groups, *)."""
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    shape = list(input.shape)
    return input.reshape([shape[0], groups, c // groups] + shape[2:]).transpose(1, 2).reshape(shape)


native_channel_shuffle = channel_shuffle


def _lp_finish(out, norm_type, count):
    return (_L.sign(out) * _L.relu(_L.abs(out))).mul(count).pow(1.0 / norm_type)


@takes_tensors("input", norm_type="float", kernel_size="int[]", stride="int[]")
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p) ** (1/p); p = inf is max pooling of |x|."""
    if norm_type == float("inf"):
        return _L.max_pool1d(input.abs(), kernel_size, [] if stride is None else stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -_L.max_pool1d(-input.abs(), kernel_size, [] if stride is None else stride, 0, 1, ceil_mode)
    out = _L.avg_pool1d(input.pow(norm_type), kernel_size, [] if stride is None else stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kernel_size if isinstance(kernel_size, int) else kernel_size[0])


@takes_tensors("input", norm_type="float", kernel_size="int[]", stride="int[]")
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kw, kh = ntuple(kernel_size, 2)
    if norm_type == float("inf"):
        return _L.max_pool2d(input.abs(), kernel_size, [] if stride is None else stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -_L.max_pool2d(-input.abs(), kernel_size, [] if stride is None else stride, 0, 1, ceil_mode)
    out = _L.avg_pool2d(input.pow(norm_type), kernel_size, [] if stride is None else stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kw * kh)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    n = len(kernel_size)
    default = [(input.shape[input.ndim - n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        ret = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = output_size
    for d in range(n):
        if ret[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return list(ret)


def _max_unpool(input, indices, size):
    """Scatter input's values to their flat positions (indices) in a zero (*, prod(size)) output."""
    lead = list(input.shape[:input.ndim - len(size)])
    total = int(np.prod(size))
    flat_idx = indices.reshape(lead + [-1]).to(int64)
    ix = flat_idx.numpy()
    if ix.size and (ix.min() < 0 or ix.max() >= total):
        bad = int(ix.max() if ix.max() >= total else ix.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, size))})")
    out = _L.zeros(lead + [total], dtype=input.dtype, device=input.device)
    return _L.scatter(out, -1, flat_idx, input.reshape(lead + [-1])).reshape(lead + list(size))


@takes_tensors("input", "indices", kernel_size="int[]", stride="int[]", padding="int[]", output_size="int[]")
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool1d's partial inverse: each value at its index, zeros elsewhere."""
    kernel_size = ntuple(kernel_size, 1)
    stride = kernel_size if stride is None else ntuple(stride, 1)
    padding = ntuple(padding, 1)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool(input, indices, size)


@takes_tensors("input", "indices", kernel_size="int[]", stride="int[]", padding="int[]", output_size="int[]")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool2d's partial inverse: each value at its flat index in the (H, W) output, zeros elsewhere."""
    kernel_size = ntuple(kernel_size, 2)
    stride = kernel_size if stride is None else ntuple(stride, 2)
    padding = ntuple(padding, 2)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool(input, indices, size)
