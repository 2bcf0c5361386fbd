"""Conv1d, Conv2d, ConvTranspose1d and ConvTranspose2d."""
import math

from . import functional as F, init
from ._factory import empty_param, ntuple
from .module import Module


class _ConvNd(Module):
    """What the convolutions share: size arguments as n-tuples, the weight and bias and PyTorch's initialisation.
    A transposed convolution's weight is (in, out/groups, *kernel_size), a plain one's (out, in/groups, ...)."""
    n = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got "
                             f"padding_mode='{padding_mode}'")
        if self.transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        n = self.n
        self.kernel_size = ntuple(kernel_size, n, "kernel_size")
        self.stride = ntuple(stride, n, "stride")
        self.dilation = ntuple(dilation, n, "dilation")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = ntuple(padding, n, "padding")
        self._reversed_padding_repeated_twice = self._pad_arg()
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.output_padding, self.padding_mode = ntuple(output_padding, n, "output_padding"), padding_mode
        shape = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        self.weight = empty_param(shape + self.kernel_size, dtype, device)
        if bias:
            self.bias = empty_param((out_channels,), dtype, device)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _pad_arg(self):
        """F.pad's argument for a padding_mode other than zeros, as PyTorch's attribute of this name: (left, right,
        top, bottom); 'same' puts the odd one of an odd total on the right/bottom (a list, as in PyTorch)."""
        if self.padding == "valid":
            return [0, 0] * self.n
        if self.padding == "same":
            totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            return [n for t in reversed(totals) for n in (t // 2, t - t // 2)]
        return tuple(p for p in reversed(self.padding) for _ in range(2))

    def _conv(self, input, padding):
        return (F.conv1d if self.n == 1 else F.conv2d)(input, self.weight, self.bias, self.stride, padding,
                                                        self.dilation, self.groups)

    def forward(self, input):
        if self.padding_mode != "zeros":
            return self._conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), 0)
        return self._conv(input, self.padding)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over (N, C, L) or (C, L); weight (out, in/groups, k)."""
    n = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C, H, W) or (C, H, W); weight (out, in/groups, kH, kW)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype)


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__} does not support string padding ('{padding}'), only ints")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size):
        """output_padding, or the one that makes the output output_size (PyTorch's forward(input, output_size))."""
        if output_size is None:
            return self.output_padding
        n = self.n
        output_size = list(output_size)
        if len(output_size) in (n + 1, n + 2):
            output_size = output_size[-n:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{n + 2} elements (got {len(output_size) })")
        least = [(input.shape[input.ndim - n + d] - 1) * self.stride[d] - 2 * self.padding[d]
                 + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        most = [lo + self.stride[d] - 1 for d, lo in enumerate(least)]
        if any(not lo <= o <= hi for o, lo, hi in zip(output_size, least, most)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {least} to "
                             f"{most} (for an input of {list(input.shape[input.ndim - n:])})")
        return tuple(o - lo for o, lo in zip(output_size, least))

    def forward(self, input, output_size=None):
        f = F.conv_transpose1d if self.n == 1 else F.conv_transpose2d
        return f(input, self.weight, self.bias, self.stride, self.padding, self._output_padding(input, output_size),
                 self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over (N, C, L) or (C, L); weight (in, out/groups, k)."""
    n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution over (N, C, H, W) or (C, H, W); weight (in, out/groups, kH, kW)."""
