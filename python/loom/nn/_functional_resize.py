"""torch.nn.functional's resizing: interpolate (and its deprecated upsample* forms), pixel_shuffle and
pixel_unshuffle, mapped onto loom's upsample_* and pooling ops."""
import math
import warnings

from .. import _ops as _L   # the generated ops: _L.pad is loom.pad
from .._args import takes_tensors
from .._tensor import Tensor

@takes_tensors("input", size="int[]", scale_factor="float[]", mode="str")
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): input must be a Tensor, not {type(input).__name__}")
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)) and len(size) != dim:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please provide "
                             f"input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        output_size = list(size) if isinstance(size, (list, tuple)) else [size] * dim
        scales = [None] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != dim:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                             f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             f"scale_factor in (s1, s2, ...,sK) format.")
        scales = [float(s) for s in scale_factor] if isinstance(scale_factor, (list, tuple)) else [float(scale_factor)] * dim
        output_size = [math.floor(float(n) * s) for n, s in zip(input.shape[2:], scales)]
        if recompute_scale_factor or mode == "area":   # the kernel then sees only the sizes
            scales = [None] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if antialias:
        raise NotImplementedError("interpolate(): antialias=True is not supported by loom")
    if dim not in (1, 2):
        raise NotImplementedError(f"interpolate(): loom supports 3-D and 4-D inputs, got {input.ndim}D "
                                  f"(mode '{mode}')")
    if mode in ("linear", "bilinear", "trilinear", "bicubic") and _mode_ndim(mode) != input.ndim:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_mode_ndim(mode)}D input")
    if dim == 1:   # the 2-D op over a height of 1 (which maps onto itself in every mode)
        return _resize2d(input.unsqueeze(2), [1] + output_size, [None] + scales, mode, align_corners).squeeze(2)
    return _resize2d(input, output_size, scales, mode, align_corners)


def _mode_ndim(mode):
    return {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}[mode]


def _resize2d(x, size, scales, mode, align_corners):
    if mode == "nearest":
        return _L.upsample_nearest2d(x, size, *scales)
    if mode == "nearest-exact":
        return _L.upsample_nearest_exact2d(x, size, *scales)
    if mode in ("linear", "bilinear"):
        return _L.upsample_bilinear2d(x, size, align_corners, *scales)
    if mode == "area":
        return _L.adaptive_avg_pool2d(x, size)
    raise NotImplementedError(f"interpolate(): mode '{mode}' is not supported by loom (nearest, nearest-exact, "
                              f"linear, bilinear, area are)")


@takes_tensors("input", size="int[]", scale_factor="float[]", mode="str")
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


@takes_tensors("input", size="int[]", scale_factor="float[]")
def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


@takes_tensors("input", size="int[]", scale_factor="float[]")
def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input, upscale_factor):
    return _L.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return _L.pixel_unshuffle(input, downscale_factor)
