"""Source positions and weights of the upsampling composites (upsample_nearest2d, upsample_bilinear2d), computed
as PyTorch's CPU kernels do - in float32 for float32 inputs - so that the picked pixels agree exactly."""
import numpy as np

from ._nsizes import ntuple
from ._numpy import from_numpy


def _scale(n_in, n_out, scale, dt):
    """Input pixels per output pixel: 1/scale when the caller's scale_factor is passed on, else the size ratio."""
    return dt(1.0 / scale) if scale is not None and scale > 0 else dt(n_in) / dt(n_out)


def nearest_source(n_in, n_out, scale, exact):
    """int64 input index of each output index ('nearest' floors dst*scale, 'nearest-exact' rounds its centre)."""
    if not exact and n_out == n_in:
        return np.arange(n_out, dtype=np.int64)
    if not exact and n_out == 2 * n_in:
        return np.arange(n_out, dtype=np.int64) >> 1
    s = _scale(n_in, n_out, scale, np.float32)
    dst = np.arange(n_out, dtype=np.float32)
    src = np.floor((dst + np.float32(0.5)) * s if exact else dst * s)
    return np.minimum(src.astype(np.int64), n_in - 1)


def linear_source(n_in, n_out, scale, align_corners, double):
    """(i0, i1, l0, l1): each output index reads l0 * x[i0] + l1 * x[i1]."""
    dt = np.float64 if double else np.float32
    if n_out == n_in:   # PyTorch copies such a dim, whatever scale says
        scale = None
    dst = np.arange(n_out, dtype=dt)
    if align_corners:
        s = dt(n_in - 1) / dt(n_out - 1) if n_out > 1 else dt(0)
        src = dst * s
    else:
        src = np.maximum(_scale(n_in, n_out, scale, dt) * (dst + dt(0.5)) - dt(0.5), dt(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = i0 + (i0 < n_in - 1)
    l1 = np.clip(src - i0.astype(dt), dt(0), dt(1))
    return i0, i1, dt(1) - l1, l1


def _sizes(x, output_size):
    if x.ndim not in (3, 4):
        raise ValueError(f"expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got {x.ndim}-D")
    size = ntuple(output_size, 2, "upsample", "output_size")
    if min(size) < 1 or min(x.shape[-2:]) < 1:
        raise ValueError(f"Input and output sizes should be greater than 0, but got input (H: {x.shape[-2]}, "
                         f"W: {x.shape[-1]}) output (H: {size[0]}, W: {size[1]})")
    return size


def upsample_nearest(x, output_size, scales, exact):
    """x with the pixels nearest_source picks along H, then W (an index_select each, so autograd comes free)."""
    out = x
    for dim, n_out, scale in zip((-2, -1), _sizes(x, output_size), scales):
        if n_out != x.shape[dim] or exact:
            index = from_numpy(nearest_source(x.shape[dim], n_out, scale, exact)).to(x.device)
            out = out.index_select(dim, index)
    return out


def upsample_linear(x, output_size, align_corners, scales):
    """Separable linear interpolation: along H, then W, each output a weighted sum of two gathered rows/columns."""
    out = x
    for dim, n_out, scale in zip((-2, -1), _sizes(x, output_size), scales):
        i0, i1, l0, l1 = linear_source(x.shape[dim], n_out, scale, align_corners, x.dtype.itemsize == 8)
        shape = [n_out, 1] if dim == -2 else [n_out]
        i0, i1 = (from_numpy(i).to(x.device) for i in (i0, i1))
        l0, l1 = (from_numpy(w).reshape(shape).to(x.device, x.dtype) for w in (l0, l1))
        out = out.index_select(dim, i0) * l0 + out.index_select(dim, i1) * l1
    return out
