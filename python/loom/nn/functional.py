"""loom.nn.functional: torch.nn.functional's signatures mapped onto loom's ops.

Each function only adapts arguments (PyTorch's Python-level defaults, argument
order, legacy size_average/reduce, string paddings); the work is the op's."""
import warnings

import numpy as np

from .._args import takes_tensors as _takes_tensors   # private: these modules are public namespaces
from .. import _ops as _L   # the generated ops: _L.linear is loom.linear
from .._namespaces import nn_functional as _generated   # the ops whose ops/ entries say python_module: nn.functional
from .._C import lib
from .._tensor import Tensor
from ._sparse_embedding import SparseEmbedding
from ._functional_resize import interpolate, pixel_shuffle, pixel_unshuffle, upsample, upsample_bilinear, \
    upsample_nearest  # noqa: F401  (re-exported: torch.nn.functional has them)


globals().update(_generated)   # linear, pad, sigmoid, batch_norm, ...: the ops themselves, no adapter


def _reduction(size_average, reduce, reduction):
    """PyTorch's legacy (size_average, reduce) pair, when given, overrides reduction."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead.".format(
        _legacy(size_average, reduce)), stacklevel=3)
    return _legacy(size_average, reduce)


def _legacy(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


# ---- linear and convolution ----
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if isinstance(input, Tensor) and input.ndim == 3:   # an unbatched (C, H, W) input, as PyTorch accepts
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    if isinstance(padding, str):
        return _conv2d_padding_str(input, weight, bias, stride, padding, dilation, groups)
    return _L.conv2d(input, weight, bias, stride, padding, dilation, groups)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v) * (2 if len(v) == 1 else 1)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """As conv2d over a height of 1 (string paddings included): (N, C, L) or unbatched (C, L)."""
    if isinstance(input, Tensor) and input.ndim == 2:
        return conv1d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    if isinstance(padding, str) and isinstance(input, Tensor) and isinstance(weight, Tensor) \
            and input.ndim == 3 and weight.ndim == 3:
        try:
            return conv2d(input.unsqueeze(2), weight.unsqueeze(2), bias, (1, _one(stride)), padding,
                          (1, _one(dilation)), groups).squeeze(2)
        except ValueError as e:
            raise ValueError(str(e).replace("conv2d()", "conv1d()")) from None
    return _L.conv1d(input, weight, bias, stride, padding, dilation, groups)


def _one(v):
    return v if isinstance(v, int) else v[0]


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if isinstance(input, Tensor) and input.ndim == 3:
        return conv_transpose2d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    return _L.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if isinstance(input, Tensor) and input.ndim == 2:
        return conv_transpose1d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    return _L.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def _conv2d_padding_str(input, weight, bias, stride, padding, dilation, groups):
    if padding == "valid":
        return _L.conv2d(input, weight, bias, stride, 0, dilation, groups)
    if padding != "same":
        raise ValueError(f"conv2d(): invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    if _pair(stride) != (1, 1):
        raise ValueError("conv2d(): padding='same' is not supported for strided convolutions")
    if not isinstance(weight, Tensor) or weight.ndim != 4:   # the op reports the bad weight
        return _L.conv2d(input, weight, bias, 1, 0, dilation, groups)
    totals = [d * (k - 1) for d, k in zip(_pair(dilation), weight.shape[-2:])]
    # PyTorch puts the odd one of an odd total on the bottom/right: that one by pad, the rest by the op
    if totals[0] % 2 or totals[1] % 2:
        input = _L.pad(input, [0, totals[1] % 2, 0, totals[0] % 2])
    return _L.conv2d(input, weight, bias, 1, [t // 2 for t in totals], dilation, groups)


# ---- pooling (pad: the op) ----
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    stride = [] if stride is None else stride
    if return_indices:
        return _L.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _L.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return _L.max_pool2d_with_indices(input, kernel_size, [] if stride is None else stride, padding, dilation,
                                      ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _L.avg_pool2d(input, kernel_size, [] if stride is None else stride, padding, ceil_mode,
                         count_include_pad, divisor_override)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    stride = [] if stride is None else stride
    if return_indices:   # max_pool2d's over a height of 1, whose flat positions are the positions along L
        v, i = _L.max_pool2d_with_indices(input.unsqueeze(-2), (1, _one(kernel_size)), () if stride == [] else
                                          (1, _one(stride)), (0, _one(padding)), (1, _one(dilation)), ceil_mode)
        return v.squeeze(-2), i.squeeze(-2)
    return _L.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _L.avg_pool1d(input, kernel_size, [] if stride is None else stride, padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    return _L.adaptive_avg_pool1d(input, output_size)


@_takes_tensors("input", output_size="int?[]")
def adaptive_max_pool2d(input, output_size, return_indices=False):
    size = _pair(output_size) if not isinstance(output_size, int) else (output_size, output_size)
    if None in size:
        size = tuple(input.shape[-2 + i] if s is None else s for i, s in enumerate(size))
    r = _L.adaptive_max_pool2d(input, size)
    return r if return_indices else r[0]


@_takes_tensors("input", output_size="int?[]")
def adaptive_max_pool1d(input, output_size, return_indices=False):
    if not isinstance(input, Tensor) or input.ndim not in (2, 3):
        raise ValueError(f"adaptive_max_pool1d(): expected a 2-D (C, L) or 3-D (N, C, L) input, got "
                         f"{getattr(input, 'ndim', type(input).__name__)}-D")
    v, i = _L.adaptive_max_pool2d(input.unsqueeze(-2), (1, _one(output_size)))
    return (v.squeeze(-2), i.squeeze(-2)) if return_indices else v.squeeze(-2)


@_takes_tensors("input", output_size="int?[]")
def adaptive_avg_pool2d(input, output_size):
    size = _pair(output_size) if not isinstance(output_size, int) else (output_size, output_size)
    if None in size:   # None keeps the input's size on that dim, as PyTorch
        size = tuple(input.shape[-2 + i] if s is None else s for i, s in enumerate(size))
    return _L.adaptive_avg_pool2d(input, size)


# ---- activations ----
def relu(input, inplace=False):
    return input.relu_() if inplace else _L.relu(input)


def silu(input, inplace=False):
    return _inplace(input, "silu") if inplace else _L.silu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return _inplace(input, "leaky_relu", negative_slope)
    return _L.leaky_relu(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    if inplace:
        return _inplace(input, "elu", alpha)
    return _L.elu(input, alpha)


def _inplace(input, name, *args):
    """An activation's inplace=True: the op's in-place variant when it has one,
    else the out-of-place result copied into input."""
    method = getattr(input, name + "_", None)
    if method is not None:
        return method(*args)
    return input.copy_(getattr(_L, name)(input, *args))


def _softmax_dim(name, ndim, stacklevel=4):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  f"an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


@_takes_tensors("input", _stacklevel="int")
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    return _L.softmax(input, dim, dtype)


@_takes_tensors("input", _stacklevel="int")
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    return _L.log_softmax(input, dim, dtype)


def relu6(input, inplace=False):
    return _inplace(input, "relu6") if inplace else _L.relu6(input)


def hardsigmoid(input, inplace=False):
    return _inplace(input, "hardsigmoid") if inplace else _L.hardsigmoid(input)


def hardswish(input, inplace=False):
    return _inplace(input, "hardswish") if inplace else _L.hardswish(input)


def mish(input, inplace=False):
    return _inplace(input, "mish") if inplace else _L.mish(input)


# ---- dropout ----
@_takes_tensors("input", p="float")
def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if inplace:
        return input.copy_(_L.dropout(input, p, training))
    return _L.dropout(input, p, training)


@_takes_tensors("input", p="float")
def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels (dim 1 of (N, C, H, W); a 3-D input is taken as (N, C, L), as PyTorch now does)
    with probability p, scaling the rest by 1 / (1 - p)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result "
                      "in an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    elif input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
    if not training or p == 0.0 or input.ndim < 2:
        return input
    if p == 1.0:
        out = input * 0.0
    else:
        keep = _L.rand(list(input.shape[:2]) + [1] * (input.ndim - 2), dtype=input.dtype) >= p
        out = input * (keep * (1.0 / (1.0 - p))).to(input.dtype)
    return input.copy_(out) if inplace else out


# ---- normalisation ----
@_takes_tensors("input", normalized_shape="int[]", eps="float")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _L.layer_norm(input, list(normalized_shape) if not isinstance(normalized_shape, int)
                         else [normalized_shape], weight, bias, eps)


# ---- embeddings ----
@_takes_tensors("input", "weight", padding_idx="int?", max_norm="float?", norm_type="float")
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    n = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx > 0:
        if padding_idx >= n:
            raise ValueError("embedding(): padding_idx must be within num_embeddings")
    elif padding_idx < 0:
        if padding_idx < -n:
            raise ValueError("embedding(): padding_idx must be within num_embeddings")
        padding_idx = n + padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if sparse:   # weight.grad comes out as a sparse COO tensor
        return SparseEmbedding.apply(weight, input, padding_idx, scale_grad_by_freq)
    return _L.embedding(weight, input, padding_idx, scale_grad_by_freq)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Rescale, in place and outside autograd, the rows of weight that input looks up whose norm exceeds max_norm
    (PyTorch's embedding_renorm_)."""
    w = weight.detach().numpy()   # zero-copy view of weight's memory
    rows = np.unique(input.detach().numpy().astype(np.int64).ravel())
    if rows.size == 0:
        return
    if rows.min() < 0 or rows.max() >= w.shape[0]:
        raise IndexError(f"embedding(): index out of range in self (num_embeddings={w.shape[0]})")
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    w[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(w.dtype)
    lib.lm_bump_version(weight._h)   # saved copies of weight are now stale, as after any in-place op


def one_hot(tensor, num_classes=-1):
    return _L.one_hot(tensor, num_classes)


# ---- losses ----
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    return _L.cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index,
                            label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _L.nll_loss(input, target, weight, _reduction(size_average, reduce, reduction), ignore_index)


@_takes_tensors("input", "target", "weight")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size_mismatch(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted(lambda d: d * d, input, target, weight, reduction)
    return _L.mse_loss(input, target, reduction)


@_takes_tensors("input", "target", "weight")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size_mismatch(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted(lambda d: d.abs(), input, target, weight, reduction)
    return _L.l1_loss(input, target, reduction)


def _weighted(error, input, target, weight, reduction):
    """PyTorch's elementwise-weighted regression loss: 'mean' divides by the weights' sum."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    losses = error(input - target) * weight
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / weight.sum()


def _warn_size_mismatch(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      f"This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      f"same size.", stacklevel=3)


@_takes_tensors("input", "target")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    return _L.binary_cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction))


@_takes_tensors("input", "target")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _L.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                               _reduction(size_average, reduce, reduction))


@_takes_tensors("input", "target")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _warn_size_mismatch(input, target)
    return _L.smooth_l1_loss(input, target, _reduction(size_average, reduce, reduction), beta)


@_takes_tensors("input", "target", "weight")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _warn_size_mismatch(input, target)
    if weight is not None:
        if delta <= 0:
            raise ValueError("huber_loss does not support non-positive values for delta.")
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
        # unlike mse/l1's weight, PyTorch's weighted huber 'mean' is the plain mean of the weighted losses
        return _L.reduce_loss(_L.huber_loss(input, target, "none", delta) * weight, reduction)
    return _L.huber_loss(input, target, reduction, delta)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _reduction(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    return _L.kl_div(input, target, reduction, log_target=log_target)


# ---- distances (cosine_similarity, pairwise_distance: the ops) ----
@_takes_tensors("input", p="float", dim="int", eps="float", out="Tensor")
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    result = _L.normalize(input, p, dim, eps)
    return result if out is None else out.copy_(result)


from ._functional_attention import scaled_dot_product_attention, multi_head_attention_forward  # noqa: E402,F401
from ._functional_more import (  # noqa: E402,F401  (the rest of torch.nn.functional: _functional_more.__all__)
    hardtanh, hardtanh_, relu_, elu_, leaky_relu_, selu, selu_, celu, celu_, softmin, softshrink, hardshrink,
    threshold_, rrelu, rrelu_, gumbel_softmax, margin_ranking_loss, hinge_embedding_loss,
    cosine_embedding_loss, soft_margin_loss, multilabel_soft_margin_loss, multi_margin_loss, multilabel_margin_loss,
    triplet_margin_loss, triplet_margin_with_distance_loss, poisson_nll_loss, gaussian_nll_loss, dropout1d,
    dropout3d, alpha_dropout, feature_alpha_dropout, rms_norm, bilinear, local_response_norm, pdist, unfold, fold,
    channel_shuffle, native_channel_shuffle, lp_pool1d, lp_pool2d, max_unpool1d, max_unpool2d)
from . import _functional_more  # noqa: E402
threshold = _functional_more.threshold   # bound by assignment: softplus's `threshold` argument shadows the name
