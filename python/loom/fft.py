"""loom.fft, as torch.fft (numpy.fft's interface): transforms over the three kernels of
ops/fft.yaml (_fft_c2c, _fft_r2c, _fft_c2r), with n=/s= (trim or zero-pad), dim=, norm=
("backward", "ortho", "forward") and complex autograd through the kernels' derivatives."""
from ._args import takes_tensors as _takes_tensors, _int   # private: these modules are public namespaces
from . import _ops
from ._dtype import BY_NAME as _BY_NAME, complex_of as _complex_of
from ._runtime import get_default_dtype as _default_dtype
from ._tensor import Tensor

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = {None: 0, "backward": 0, "ortho": 1, "forward": 2}


def _norm(norm, forward, op):
    """The kernels' normalization code: "backward" scales the inverse by 1/n, "forward" the forward."""
    if norm not in _NORMS:
        raise ValueError(f"{op}: Invalid normalization mode: {norm!r} (expected 'forward', 'backward' or 'ortho')")
    code = _NORMS[norm]
    if code == 1:
        return 1
    return (0 if code == 0 else 2) if forward else (2 if code == 0 else 0)


def _check(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")


def _to_complex(x):
    """A real or integer input as the complex dtype of its float (integers: the default float's)."""
    if x.dtype.is_complex:
        return x
    if not x.dtype.is_floating_point or x.dtype.itemsize < 4:
        x = x.to(_default_dtype() if not x.dtype.is_floating_point else _BY_NAME["float32"])
    return x.to(_complex_of(x.dtype))


def _to_real(x, op):
    if x.dtype.is_complex:
        raise RuntimeError(f"{op} expects a real input tensor, but got {x.dtype.name}")
    if not x.dtype.is_floating_point or x.dtype.itemsize < 4:
        x = x.to(_default_dtype() if not x.dtype.is_floating_point else _BY_NAME["float32"])
    return x


def _resize(x, dim, n, op):
    """x trimmed or zero-padded to n along dim (n None: as is)."""
    if n is None:
        return x
    if n < 1:
        raise RuntimeError(f"{op}: Invalid number of data points ({n}) specified")
    have = x.shape[dim]
    if n < have:
        return x.narrow(dim, 0, n)
    if n > have:
        shape = list(x.shape)
        shape[dim] = n - have
        return _ops.cat([x, _ops.zeros(shape, dtype=x.dtype, device=x.device)], dim)
    return x


def _dims_and_sizes(x, s, dim, op):
    """(dims, sizes) for the n-dimensional transforms: numpy's rules for s and axes."""
    if dim is None:
        if s is None:
            dims = list(range(x.ndim))
        else:
            dims = list(range(x.ndim - len(s), x.ndim))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [d % x.ndim if x.ndim else d for d in dims]
    if s is not None and len(s) != len(dims):
        raise RuntimeError(f"{op}: When given, dim and shape arguments must have the same length")
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{op}: FFT dims must be unique")
    sizes = list(s) if s is not None else [None] * len(dims)
    return dims, [None if v == -1 else v for v in sizes]


def _one_dim(x, dim, op):
    if x.ndim == 0:
        raise IndexError(f"{op}: Dimension specified as {dim} but tensor has no dimensions")
    if not -x.ndim <= dim < x.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-x.ndim}, {x.ndim - 1}], but got {dim})")
    return dim % x.ndim


# ---- one dimension
@_takes_tensors("input", n="int", dim="int", norm="str")
def fft(input, n=None, dim=-1, norm=None):
    """The discrete Fourier transform of input along dim."""
    _check(input, "fft")
    d = _one_dim(input, dim, "fft")
    x = _resize(_to_complex(input), d, n, "fft")
    return _ops._fft_c2c(x, [d], _norm(norm, True, "fft"), True)


@_takes_tensors("input", n="int", dim="int", norm="str")
def ifft(input, n=None, dim=-1, norm=None):
    """The inverse discrete Fourier transform of input along dim."""
    _check(input, "ifft")
    d = _one_dim(input, dim, "ifft")
    x = _resize(_to_complex(input), d, n, "ifft")
    return _ops._fft_c2c(x, [d], _norm(norm, False, "ifft"), False)


@_takes_tensors("input", n="int", dim="int", norm="str")
def rfft(input, n=None, dim=-1, norm=None):
    """The Fourier transform of real input along dim: its first n // 2 + 1 (non-redundant) entries."""
    _check(input, "rfft")
    d = _one_dim(input, dim, "rfft")
    x = _resize(_to_real(input, "rfft"), d, n, "rfft")
    return _ops._fft_r2c(x, [d], _norm(norm, True, "rfft"), True)


def _c2r(input, n, dim, norm, forward, op):
    """n real points (default 2 (m - 1)) of the Hermitian signal whose first half input holds;
    hfft is the forward transform: of the conjugate, normalized as a forward one."""
    _check(input, op)
    d = _one_dim(input, dim, op)
    n = 2 * (input.shape[d] - 1) if n is None else n
    if n < 1:
        raise RuntimeError(f"{op}: Invalid number of data points ({n}) specified")
    x = _resize(_to_complex(input), d, n // 2 + 1, op)
    return _ops._fft_c2r(x.conj() if forward else x, [d], _norm(norm, forward, op), n)


@_takes_tensors("input", n="int", dim="int", norm="str")
def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of rfft: n real points (default 2 (m - 1) for m input entries along dim)."""
    return _c2r(input, n, dim, norm, False, "irfft")


@_takes_tensors("input", n="int", dim="int", norm="str")
def hfft(input, n=None, dim=-1, norm=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: real."""
    return _c2r(input, n, dim, norm, True, "hfft")


@_takes_tensors("input", n="int", dim="int", norm="str")
def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of hfft: the first n // 2 + 1 entries of the inverse transform of real input."""
    _check(input, "ihfft")
    d = _one_dim(input, dim, "ihfft")
    x = _resize(_to_real(input, "ihfft"), d, n, "ihfft")
    return _ops._fft_r2c(x, [d], _norm(norm, False, "ihfft"), True).conj()


# ---- n dimensions
def _c2c_n(input, s, dim, norm, forward, op):
    _check(input, op)
    x = _to_complex(input)
    dims, sizes = _dims_and_sizes(x, s, dim, op)
    for d, n in zip(dims, sizes):
        x = _resize(x, d, n, op)
    return _ops._fft_c2c(x, dims, _norm(norm, forward, op), forward) if dims else x


@_takes_tensors("input", s="int[]", dim="int[]", norm="str")
def fftn(input, s=None, dim=None, norm=None):
    """The n-dimensional transform over dim (all dims by default; the last len(s) when s is given)."""
    return _c2c_n(input, s, dim, norm, True, "fftn")


@_takes_tensors("input", s="int[]", dim="int[]", norm="str")
def ifftn(input, s=None, dim=None, norm=None):
    """The inverse of fftn."""
    return _c2c_n(input, s, dim, norm, False, "ifftn")


@_takes_tensors("input", s="int[]", dim="int[]", norm="str")
def rfftn(input, s=None, dim=None, norm=None):
    """The n-dimensional transform of real input, onesided along the last of dim."""
    _check(input, "rfftn")
    x = _to_real(input, "rfftn")
    dims, sizes = _dims_and_sizes(x, s, dim, "rfftn")
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    for d, n in zip(dims, sizes):
        x = _resize(x, d, n, "rfftn")
    return _ops._fft_r2c(x, dims, _norm(norm, True, "rfftn"), True)


@_takes_tensors("input", s="int[]", dim="int[]", norm="str")
def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of rfftn: real, the last of dim of length s[-1] (default 2 (m - 1))."""
    _check(input, "irfftn")
    x = _to_complex(input)
    dims, sizes = _dims_and_sizes(x, s, dim, "irfftn")
    if not dims:
        raise RuntimeError("irfftn must transform at least one axis")
    last = sizes[-1] if sizes[-1] is not None else 2 * (x.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"irfftn: Invalid number of data points ({last}) specified")
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _resize(x, d, n, "irfftn")
    x = _resize(x, dims[-1], last // 2 + 1, "irfftn")
    return _ops._fft_c2r(x, dims, _norm(norm, False, "irfftn"), last)


@_takes_tensors("input", s="int[]", dim="int[]", norm="str")
def fft2(input, s=None, dim=(-2, -1), norm=None):
    return fftn(input, s, dim, norm)


@_takes_tensors("input", s="int[]", dim="int[]", norm="str")
def ifft2(input, s=None, dim=(-2, -1), norm=None):
    return ifftn(input, s, dim, norm)


@_takes_tensors("input", s="int[]", dim="int[]", norm="str")
def rfft2(input, s=None, dim=(-2, -1), norm=None):
    return rfftn(input, s, dim, norm)


@_takes_tensors("input", s="int[]", dim="int[]", norm="str")
def irfft2(input, s=None, dim=(-2, -1), norm=None):
    return irfftn(input, s, dim, norm)


# ---- helpers
@_takes_tensors(n="int", d="float")
def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point transform: [0, 1, ..., n/2 - 1, -n/2, ..., -1] / (d n)."""
    n = _int(n, "fft_fftfreq", "n")
    r = _ops.arange(n, dtype=dtype, device=device) if dtype is not None else _ops.arange(n, device=device).to(
        _default_dtype())
    r = _ops.where(r >= (n + 1) // 2, r - n, r) * (1.0 / (d * n))
    return r.requires_grad_(requires_grad) if requires_grad else r


@_takes_tensors(n="int", d="float")
def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of rfft's n // 2 + 1 entries: [0, 1, ..., n // 2] / (d n)."""
    n = _int(n, "fft_rfftfreq", "n")
    r = _ops.arange(n // 2 + 1, device=device).to(dtype or _default_dtype()) * (1.0 / (d * n))
    return r.requires_grad_(requires_grad) if requires_grad else r


def _shift(input, dim, sign):
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    shifts = [sign * (input.shape[d] // 2) for d in dims]
    return _ops.roll(input, shifts, dims) if dims else input


@_takes_tensors("input", dim="int[]")
def fftshift(input, dim=None):
    """The zero frequency moved to the middle along dim (all dims by default)."""
    return _shift(input, dim, 1)


@_takes_tensors("input", dim="int[]")
def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shift(input, dim, -1)

