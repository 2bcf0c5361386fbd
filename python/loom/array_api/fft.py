"""The standard's fft extension over loom.fft."""
from .. import fft as _fft
from .._dtype import CPU
from ._creation import arange
from ._dtypes import DEFAULT_FLOAT


def _one(f):
    def g(x, /, *, n=None, axis=-1, norm="backward"):
        return f(x, n=n, dim=axis, norm=norm)
    g.__name__ = g.__qualname__ = f.__name__
    g.__doc__ = f"The standard's fft.{f.__name__}: along axis, n points, norm 'backward', 'ortho' or 'forward'."
    return g


def _many(f):
    def g(x, /, *, s=None, axes=None, norm="backward"):
        return f(x, s=s, dim=axes, norm=norm)
    g.__name__ = g.__qualname__ = f.__name__
    g.__doc__ = f"The standard's fft.{f.__name__}: over axes, s points each, norm as the 1-d ones."
    return g


fft, ifft, rfft, irfft, hfft, ihfft = (_one(f) for f in (_fft.fft, _fft.ifft, _fft.rfft, _fft.irfft, _fft.hfft,
                                                         _fft.ihfft))
fftn, ifftn, rfftn, irfftn = (_many(f) for f in (_fft.fftn, _fft.ifftn, _fft.rfftn, _fft.irfftn))


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies of an n-point fft, for sample spacing d."""
    dtype = dtype or DEFAULT_FLOAT
    k = arange(n, dtype=dtype, device=device or CPU)
    k = k - (k >= (n + 1) // 2).to(dtype) * n
    return k / (d * n)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies of an n-point rfft, for sample spacing d."""
    dtype = dtype or DEFAULT_FLOAT
    return arange(n // 2 + 1, dtype=dtype, device=device or CPU) / (d * n)


def fftshift(x, /, *, axes=None):
    """x with the zero frequency moved to the centre of axes."""
    return _fft.fftshift(x, dim=axes)


def ifftshift(x, /, *, axes=None):
    """The inverse of fftshift."""
    return _fft.ifftshift(x, dim=axes)
