"""More layers: Dropout1d/3d, AlphaDropout, FeatureAlphaDropout, RMSNorm, Bilinear, LocalResponseNorm, LazyLinear
(with UninitializedParameter), Fold/Unfold, ChannelShuffle, LPPool1d/2d and MaxUnpool1d/2d."""
import math
import numbers

from .. import _ops
from ..autograd.grad_mode import no_grad
from . import _functional_more as FM, init
from ._factory import empty_param, ntuple
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .parameter import Parameter, _swap_data

__all__ = ["Dropout1d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "RMSNorm", "Bilinear",
           "LocalResponseNorm", "UninitializedParameter", "LazyLinear", "Fold", "Unfold", "ChannelShuffle",
           "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d"]


# ---- dropout ----
class Dropout1d(Dropout):
    """Zeroes whole channels of (N, C, L) or (C, L) with probability p in training (scaling the rest by 1/(1-p))."""

    def forward(self, input):
        return FM.dropout1d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) with probability p in training."""

    def forward(self, input):
        return FM.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Dropout that keeps a SELU network's zero mean and unit variance (dropped entries take SELU's saturation
    value, then an affine correction); identity in eval mode."""

    def forward(self, input):
        return FM.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """AlphaDropout of whole channels."""

    def forward(self, input):
        return FM.feature_alpha_dropout(input, self.p, self.training)


# ---- normalisation and products ----
class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) * weight over the trailing normalized_shape dims (eps None: the dtype's eps)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = empty_param(self.normalized_shape, dtype, device)
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return FM.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class Bilinear(Module):
    """y = x1^T A x2 + b: weight (out_features, in1_features, in2_features), both U(-1/sqrt(in1), 1/sqrt(in1))."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = empty_param((out_features, in1_features, in2_features), dtype, device)
        if bias:
            self.bias = empty_param((out_features,), dtype, device)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return FM.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return FM.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# ---- lazy ----
class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (a lazy module's): it holds no data until materialize(shape),
    which gives it storage and turns it into a plain Parameter."""
    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return super().__new__(cls, _ops.empty([0], dtype=dtype, device=device), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def materialize(self, shape, device=None, dtype=None):
        """Give the parameter uninitialised storage of `shape` (its own dtype/device unless given)."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        _swap_data(self, _ops.empty(list(shape), dtype=dtype or self.dtype, device=device or self.device))
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedParameter>"

    def __reduce__(self):
        return (UninitializedParameter, (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = UninitializedParameter(self.requires_grad, dtype=self.dtype)
        return memo[id(self)]


class LazyLinear(Linear):
    """A Linear whose in_features is inferred from the first input: the parameters are materialised (and
    initialised as Linear's) on the first call, or from a loaded state dict, and the module becomes a Linear."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def has_uninitialized_params(self):
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()

    def _load_from_state_dict(self, state_dict, prefix, missing, unexpected, errors, assign):
        for name, param in self._parameters.items():
            key = prefix + name
            if isinstance(param, UninitializedParameter) and key in state_dict:
                param.materialize(tuple(state_dict[key].shape))
        if not isinstance(self.weight, UninitializedParameter):
            self.in_features = self.weight.shape[1]
        super()._load_from_state_dict(state_dict, prefix, missing, unexpected, errors, assign)

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        out = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
        for name, param in self._parameters.items():   # unmaterialised ones as they are, as PyTorch's lazy modules
            if isinstance(param, UninitializedParameter):
                out[prefix + name] = param
        return out

    def forward(self, input):
        self.initialize_parameters(input)
        if not self.has_uninitialized_params():
            self.__class__ = self.cls_to_become
        return _ops.linear(input, self.weight, self.bias)


# ---- im2col / col2im ----
class Fold(Module):
    """col2im: (N, C * prod(kernel_size), L) blocks summed into (N, C, *output_size)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return FM.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """im2col: (N, C, H, W) -> (N, C * prod(kernel_size), L) sliding blocks."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return FM.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


# ---- channels and pooling ----
class ChannelShuffle(Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return FM.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """(sum of x^p over each window) ** (1/p)."""

    def forward(self, input):
        return FM.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    def forward(self, input):
        return FM.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = ntuple(kernel_size, self._n)
        self.stride = ntuple(stride if stride is not None else kernel_size, self._n)
        self.padding = ntuple(padding, self._n)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """max_pool1d's partial inverse: forward(input, indices, output_size=None)."""
    _n = 1

    def forward(self, input, indices, output_size=None):
        return FM.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """max_pool2d's partial inverse: forward(input, indices, output_size=None)."""

    def forward(self, input, indices, output_size=None):
        return FM.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)
