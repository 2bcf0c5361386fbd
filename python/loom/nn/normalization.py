"""BatchNorm1d/2d, LayerNorm, GroupNorm and InstanceNorm1d/2d."""
import numbers
import warnings

from .. import _ops
from .._dtype import int64
from . import functional as F, init
from ._factory import empty_param
from .module import Module


class _BatchNorm(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = empty_param((num_features,), dtype, device)
            if bias:
                self.bias = empty_param((num_features,), dtype, device)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _ops.zeros([num_features], dtype=dtype, device=device))
            self.register_buffer("running_var", _ops.ones([num_features], dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", _ops.zeros([], dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.fill_(0)
            self.running_var.fill_(1)
            self.num_batches_tracked.fill_(0)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            # momentum=None: a cumulative moving average
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        # in eval mode without running stats, batch statistics are used (PyTorch's rule)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_running else None,
                            self.running_var if use_running else None, self.weight, self.bias, bn_training,
                            factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L)."""

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W)."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class LayerNorm(Module):
    """Normalisation over the trailing normalized_shape dims, with elementwise weight and bias."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        _affine_params(self, self.normalized_shape, elementwise_affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


def _affine_params(m, shape, affine, bias, dtype, device):
    """weight and bias of `shape` (bias only when asked), or both registered as None"""
    m.register_parameter("weight", empty_param(shape, dtype, device) if affine else None)
    m.register_parameter("bias", empty_param(shape, dtype, device) if affine and bias else None)


def _reset_affine(m):
    """PyTorch's start for a norm's affine parameters: weight 1, bias 0"""
    if m.weight is not None:
        init.ones_(m.weight)
    if m.bias is not None:
        init.zeros_(m.bias)


class GroupNorm(Module):
    """Normalisation of each sample over groups of num_channels // num_groups channels, with per-channel affine."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_groups <= 0 or num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _affine_params(self, (num_channels,), affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _InstanceNorm(_BatchNorm):
    """Per-sample, per-channel normalisation; PyTorch's defaults differ from batch norm's (no affine, no running
    statistics), and the running statistics, when tracked, serve in eval mode only."""
    _batch_ndim = 0   # the ndim of a batched input

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input):
        if input.dim() not in (self._batch_ndim - 1, self._batch_ndim):
            raise ValueError(f"expected {self._batch_ndim - 1}D or {self._batch_ndim}D input (got {input.dim()}D "
                             f"input)")

    def forward(self, input):
        self._check_input_dim(input)
        dim = 0 if input.dim() == self._batch_ndim - 1 else 1
        if input.shape[dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={dim} to match num_features ({self.num_features}), "
                                 f"but got: {input.shape[dim]}.")
            warnings.warn(f"input's size at dim={dim} does not match num_features. You can silence this warning by "
                          f"not passing in num_features, which is not used because affine=False", stacklevel=2)
        if dim == 0:   # unbatched
            return self.forward(input.unsqueeze(0)).squeeze(0)
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation over (N, C, L) or (C, L)."""
    _batch_ndim = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation over (N, C, H, W) or (C, H, W)."""
    _batch_ndim = 4
