"""Composite ops of ops/nn_layers.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/nn_layers.yaml names it with
`composite: true`."""
import builtins as _b

from .. import _ops
from .._dtype import float32 as _f32, float64 as _f64
from .._memory_format import channels_last as _channels_last
from .._nsizes import ntuple
from .._resample import upsample_nearest
from .._resample import upsample_linear


_NATIVE_LN = (_f32, _f64)   # what native_layer_norm and _batch_norm_train serve
_NATIVE_DEVICES = ("cpu", "meta")   # meta: their meta rules give the kernels' layouts


def max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode):
    return _ops.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def layer_norm(input, normalized_shape, weight, bias, eps):
    n = len(normalized_shape)
    if n == 0 or input.ndim < n or list(input.shape[input.ndim - n:]) != list(normalized_shape):
        raise ValueError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                         f"[*, {', '.join(str(v) for v in normalized_shape)}], but got input of size {list(input.shape)}")
    if (input.device.type in _NATIVE_DEVICES and input.dtype in _NATIVE_LN
            and all(t is None or (t.dtype == input.dtype and list(t.shape) == list(normalized_shape))
                    for t in (weight, bias))):
        return _ops.native_layer_norm(input, normalized_shape, weight, bias, eps)[0]   # native/cpu/layer_norm.c
    dims = list(range(input.ndim - n, input.ndim))
    xc = input - input.mean(dims, keepdim=True)
    out = xc * ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out.contiguous()   # as PyTorch's kernels (the pointwise ops above keep input's layout)


def batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    if input.ndim < 2:
        raise ValueError(f"expected a 2-D or more input (N, C, ...), got {input.ndim}-D")
    C = input.shape[1]
    shape = [1, C] + [1] * (input.ndim - 2)
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (C,):
            raise ValueError(f"{name} should contain {C} elements not {t.numel()}")
    if training:
        dims = [0] + list(range(2, input.ndim))
        count = input.numel() // _b.max(C, 1)
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(input.shape)}")
        if (input.device.type in _NATIVE_DEVICES and input.dtype in _NATIVE_LN
                and all(t is None or t.dtype == input.dtype for t in (weight, bias))):
            out, mean, invstd = _ops._batch_norm_train(input, weight, bias, eps)   # native/cpu/batch_norm.c
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(mean.detach(), alpha=momentum)
            if running_var is not None:   # the biased variance back from 1 / sqrt(var + eps), a C-sized op
                var = invstd.detach().square().reciprocal() - eps
                running_var.mul_(1 - momentum).add_(var, alpha=momentum * count / (count - 1))
            return out
        mean = input.mean(dims)
        xc = input - mean.reshape(shape)
        var = (xc * xc).mean(dims)
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.detach(), alpha=momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var.detach(), alpha=momentum * count / (count - 1))
    else:
        if running_mean is None or running_var is None:
            raise ValueError("running_mean and running_var must be given when training=False")
        mean, var = running_mean, running_var
        xc = input - mean.reshape(shape)
    out = xc * (var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    # PyTorch's kernels: contiguous, or channels-last for such an input
    cl = input.ndim == 4 and input.is_contiguous(memory_format=_channels_last) and not input.is_contiguous()
    return out.contiguous(memory_format=_channels_last) if cl else out.contiguous()


def logsumexp(self, dim, keepdim):
    if not self.dtype.is_floating_point:
        self = self * 1.0   # integers and bools promote to the default float
    if self.numel() == 0:   # amax refuses an empty dim; the log of an empty sum is -inf, as PyTorch's
        return self.exp().sum(dim, keepdim).log()
    m = self.detach().amax(dim, keepdim=True)
    m = _ops.where(_ops.isfinite(m), m, 0.0)
    r = (self - m).exp().sum(dim, keepdim=True).log() + m
    return r if keepdim else r.squeeze(dim)


def conv1d(input, weight, bias, stride, padding, dilation, groups):
    if input.ndim != 3 or weight.ndim != 3:
        raise ValueError(f"expected 3-D input (N, C, L) and weight (O, C/groups, k), got {input.ndim}-D and {weight.ndim}-D")
    s, p, d = (ntuple(v, 1, "conv1d", n)[0] for v, n in ((stride, "stride"), (padding, "padding"), (dilation, "dilation")))
    return _ops.conv2d(input.unsqueeze(2), weight.unsqueeze(2), bias, [1, s], [0, p], [1, d], groups).squeeze(2)


def conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation):
    if input.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"expected 4-D input (N, C, H, W) and weight (C, O/groups, kH, kW), got {input.ndim}-D and {weight.ndim}-D")
    s, p, op, d = (ntuple(v, 2, "conv_transpose2d", n) for v, n in ((stride, "stride"), (padding, "padding"),
                                                                  (output_padding, "output_padding"), (dilation, "dilation")))
    if groups < 1:
        raise ValueError(f"groups must be positive, got {groups}")
    if _b.min(s + d) < 1 or _b.min(p + op) < 0:
        raise ValueError(f"stride and dilation must be positive, padding and output_padding non-negative, got "
                         f"stride={s}, padding={p}, output_padding={op}, dilation={d}")
    if _b.any(o >= _b.max(si, di) for o, si, di in zip(op, s, d)):
        raise ValueError(f"output padding must be smaller than either stride or dilation, got output_padding={op}, "
                         f"stride={s}, dilation={d}")
    if weight.shape[0] != input.shape[1]:
        raise ValueError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(input.shape)} "
                         f"to have {weight.shape[0]} channels, but got {input.shape[1]} channels instead")
    full = [(n - 1) * si + di * (k - 1) + 1 for n, si, di, k in zip(input.shape[2:], s, d, weight.shape[2:])]
    size = [f - 2 * pi + o for f, pi, o in zip(full, p, op)]
    if _b.min(size) < 1:
        raise ValueError(f"Given input size per channel {list(input.shape[2:])}, calculated output size {size} is too small")
    N, O = input.shape[0], weight.shape[1] * groups
    if _b.all(o < si for o, si in zip(op, s)):
        # the transpose of conv2d from an output-sized input: output_padding below the stride is rows it reaches
        out = _ops.conv2d_backward_input(input, weight, [N, O] + size, s, p, d, groups)
    else:
        # output_padding >= stride (dilation > stride): the unpadded result, cropped by padding, zero-extended past it
        out = _ops.conv2d_backward_input(input, weight, [N, O] + full, s, [0, 0], d, groups)
        out = _ops.pad(out, [-p[1], size[1] + p[1] - full[1], -p[0], size[0] + p[0] - full[0]])
    return out if bias is None else out + bias.reshape([1, -1, 1, 1])


def conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation):
    if input.ndim != 3 or weight.ndim != 3:
        raise ValueError(f"expected 3-D input (N, C, L) and weight (C, O/groups, k), got {input.ndim}-D and {weight.ndim}-D")
    s, p, op, d = (ntuple(v, 1, "conv_transpose1d", n)[0] for v, n in ((stride, "stride"), (padding, "padding"),
                                                                     (output_padding, "output_padding"), (dilation, "dilation")))
    return _ops.conv_transpose2d(input.unsqueeze(2), weight.unsqueeze(2), bias, [1, s], [0, p], [0, op], groups,
                            [1, d]).squeeze(2)


def group_norm(input, num_groups, weight, bias, eps):
    if input.ndim < 2:
        raise ValueError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    N, C = input.shape[0], input.shape[1]
    if num_groups < 1 or C % num_groups:
        raise ValueError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                         f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (C,):
            raise ValueError(f"Expected {name} to be a vector of size equal to the number of channels in input, but "
                             f"got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    x = input.reshape([N, num_groups, -1])
    xc = x - x.mean([2], keepdim=True)
    out = (xc * ((xc * xc).mean([2], keepdim=True) + eps).rsqrt()).reshape(list(input.shape))
    shape = [1, C] + [1] * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    # PyTorch's kernels: contiguous, or channels-last for such an input
    cl = input.ndim == 4 and input.is_contiguous(memory_format=_channels_last) and not input.is_contiguous()
    return out.contiguous(memory_format=_channels_last) if cl else out.contiguous()


def instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps):
    if input.ndim < 3:
        raise ValueError(f"expected a 3-D or more input (N, C, ...), got {input.ndim}-D")
    N, C = input.shape[0], input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (C,):
            raise ValueError(f"{name} should contain {C} elements not {t.numel()}")
    shape = [1, C] + [1] * (input.ndim - 2)
    if use_input_stats:
        dims = list(range(2, input.ndim))
        count = input.numel() // _b.max(N * C, 1)
        if count <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
        mean = input.mean(dims, keepdim=True)
        xc = input - mean
        var = (xc * xc).mean(dims, keepdim=True)
        # the running statistics take the mean over the batch of each sample's (unbiased) ones, as PyTorch's
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.detach().reshape([N, C]).mean([0]), alpha=momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var.detach().reshape([N, C]).mean([0]), alpha=momentum * count / (count - 1))
    else:
        if running_mean is None or running_var is None:
            raise ValueError("Expected running_mean and running_var to be defined when use_input_stats is false")
        xc = input - running_mean.reshape(shape)
        var = running_var.reshape(shape)
    out = xc * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    # PyTorch's kernels: contiguous, or channels-last for such an input
    cl = input.ndim == 4 and input.is_contiguous(memory_format=_channels_last) and not input.is_contiguous()
    return out.contiguous(memory_format=_channels_last) if cl else out.contiguous()


def upsample_nearest2d(self, output_size, scales_h, scales_w):
    return upsample_nearest(self, output_size, (scales_h, scales_w), False)


def upsample_nearest_exact2d(self, output_size, scales_h, scales_w):
    return upsample_nearest(self, output_size, (scales_h, scales_w), True)


def upsample_bilinear2d(self, output_size, align_corners, scales_h, scales_w):
    return upsample_linear(self, output_size, align_corners, (scales_h, scales_w))


def max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode):
    if self.ndim not in (2, 3):
        raise ValueError(f"expected a 2-D (C, L) or 3-D (N, C, L) input, got {self.ndim}-D")
    k, p, d = (ntuple(v, 1, "max_pool1d", n)[0] for v, n in ((kernel_size, "kernel_size"), (padding, "padding"), (dilation, "dilation")))
    s = [] if isinstance(stride, (list, tuple)) and not stride else [1, ntuple(stride, 1, "max_pool1d", "stride")[0]]
    return _ops.max_pool2d(self.unsqueeze(-2), [1, k], s, [0, p], [1, d], ceil_mode).squeeze(-2)


def avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad):
    if self.ndim not in (2, 3):
        raise ValueError(f"expected a 2-D (C, L) or 3-D (N, C, L) input, got {self.ndim}-D")
    k, p = (ntuple(v, 1, "avg_pool1d", n)[0] for v, n in ((kernel_size, "kernel_size"), (padding, "padding")))
    s = [] if isinstance(stride, (list, tuple)) and not stride else [1, ntuple(stride, 1, "avg_pool1d", "stride")[0]]
    return _ops.avg_pool2d(self.unsqueeze(-2), [1, k], s, [0, p], ceil_mode, count_include_pad).squeeze(-2)


def adaptive_avg_pool1d(self, output_size):
    if self.ndim not in (2, 3):
        raise ValueError(f"expected a 2-D (C, L) or 3-D (N, C, L) input, got {self.ndim}-D")
    return _ops.adaptive_avg_pool2d(self.unsqueeze(-2), [1, ntuple(output_size, 1, "adaptive_avg_pool1d", "output_size")[0]]).squeeze(-2)


def pixel_shuffle(self, upscale_factor):
    r = upscale_factor
    if self.ndim < 3:
        raise ValueError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {self.ndim} dimension(s)")
    if r < 1:
        raise ValueError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    lead, (C, H, W), n = list(self.shape[:-3]), self.shape[-3:], self.ndim - 3
    if C % (r * r):
        raise ValueError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                         f"upscale_factor, but input.size(-3)={C} is not divisible by {r * r}")
    x = self.reshape(lead + [C // (r * r), r, r, H, W]).permute(list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return x.reshape(lead + [C // (r * r), H * r, W * r])


def pixel_unshuffle(self, downscale_factor):
    r = downscale_factor
    if self.ndim < 3:
        raise ValueError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {self.ndim} dimension(s)")
    if r < 1:
        raise ValueError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    lead, (C, H, W), n = list(self.shape[:-3]), self.shape[-3:], self.ndim - 3
    for name, size, d in (("height", H, -2), ("width", W, -1)):
        if size % r:
            raise ValueError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                             f"input.size({d})={size} is not divisible by {r}")
    x = self.reshape(lead + [C, H // r, r, W // r, r]).permute(list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return x.reshape(lead + [C * r * r, H // r, W // r])
