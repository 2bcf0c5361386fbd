"""loom.stft / loom.istft and the window functions, as PyTorch's: frames gathered by index
(differentiable), windowed, transformed by loom.fft; the inverse overlap-adds the frames and
divides by the summed squared window."""
import math

from . import _ops, fft as _fft
from ._args import _int, takes_tensors
from ._dtype import float64 as _float64
from ._runtime import get_default_dtype as _default_dtype
from ._tensor import Tensor
from .nn import functional as _F


# ---- windows (periodic by default: the first N of an N + 1 point symmetric window)
def _window(name, window_length, periodic, dtype, device, fn):
    window_length = _int(window_length, name, "window_length")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dtype = dtype or _default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype.name}")
    if window_length <= 1:
        return _ops.ones(window_length, dtype=dtype, device=device)
    n = window_length + 1 if periodic else window_length
    w = fn(_ops.arange(window_length, dtype=_float64), n).to(dtype)   # computed in float64, then rounded
    return w if device is None else w.to(device)


@takes_tensors(periodic="bool")
def hann_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    w = _window("hann_window", window_length, periodic, dtype, device,
                lambda k, n: 0.5 - 0.5 * _ops.cos(k * (2 * math.pi / (n - 1))))
    return w.requires_grad_(requires_grad) if requires_grad else w


@takes_tensors(periodic="bool", alpha="float", beta="float")
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, device=None,
                   requires_grad=False):
    w = _window("hamming_window", window_length, periodic, dtype, device,
                lambda k, n: alpha - beta * _ops.cos(k * (2 * math.pi / (n - 1))))
    return w.requires_grad_(requires_grad) if requires_grad else w


@takes_tensors(periodic="bool")
def blackman_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    w = _window("blackman_window", window_length, periodic, dtype, device,
                lambda k, n: 0.42 - 0.5 * _ops.cos(k * (2 * math.pi / (n - 1))) +
                0.08 * _ops.cos(k * (4 * math.pi / (n - 1))))
    return w.requires_grad_(requires_grad) if requires_grad else w


@takes_tensors(periodic="bool")
def bartlett_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    w = _window("bartlett_window", window_length, periodic, dtype, device,
                lambda k, n: 1 - _ops.abs(k * (2.0 / (n - 1)) - 1))
    return w.requires_grad_(requires_grad) if requires_grad else w


# ---- the short-time Fourier transform
def _padded_window(window, n_fft, win_length, like, op):
    if window is None:
        window = _ops.ones(win_length, dtype=like.dtype if like.dtype.is_floating_point else _default_dtype())
    if window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{op}: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    if win_length < n_fft:   # centred in n_fft, as PyTorch's
        left = (n_fft - win_length) // 2
        window = _ops.cat([_ops.zeros(left, dtype=window.dtype), window,
                           _ops.zeros(n_fft - win_length - left, dtype=window.dtype)])
    return window


def _frame_index(n_frames, n_fft, hop):
    return (_ops.arange(n_frames) * hop).unsqueeze(1) + _ops.arange(n_fft).unsqueeze(0)


@takes_tensors("input", "window", n_fft="int", hop_length="int", win_length="int", pad_mode="str",
               normalized="bool", onesided="bool", return_complex="bool")
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None):
    """Frames of n_fft samples every hop_length, windowed and transformed: (freq, frames), batched
    over a leading dim; complex (return_complex=True) or its view_as_real."""
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' must be Tensor, not {type(input).__name__}")
    if return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D tensor")
    x = input.unsqueeze(0) if input.ndim == 1 else input
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if center:
        pad = n_fft // 2
        x = _F.pad(x.unsqueeze(1), (pad, pad), mode=pad_mode).squeeze(1)
    length = x.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if win_length <= 0 or win_length > n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    w = _padded_window(window, n_fft, win_length, x, "stft")
    n_frames = 1 + (length - n_fft) // hop
    frames = x[:, _frame_index(n_frames, n_fft, hop)] * w   # (batch, frames, n_fft)
    complex_in = x.dtype.is_complex or w.dtype.is_complex
    onesided = not complex_in if onesided is None else onesided
    if onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    spec = _fft.rfft(frames) if onesided else _fft.fft(frames)
    if normalized:
        spec = spec * (n_fft ** -0.5)
    spec = spec.transpose(-1, -2)
    if not return_complex:
        spec = _ops.view_as_real(spec.contiguous())
    return spec.squeeze(0) if input.ndim == 1 else spec


@takes_tensors("input", "window", n_fft="int", hop_length="int", win_length="int", center="bool",
               normalized="bool", onesided="bool", length="int", return_complex="bool")
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of stft: the frames' inverse transforms overlap-added and divided by the summed
    squared window (which must not vanish where samples are kept)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex values, got {input.ndim}")
    spec = input.unsqueeze(0) if input.ndim == 2 else input
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    onesided = spec.shape[-2] != n_fft if onesided is None else onesided
    want = n_fft // 2 + 1 if onesided else n_fft
    if spec.shape[-2] != want:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {spec.shape[-2]}" if onesided else
                           f"istft: expected the frequency dimension to be n_fft={n_fft}, but got {spec.shape[-2]}")
    frames = spec.transpose(-1, -2)
    if normalized:
        frames = frames * (n_fft ** 0.5)
    if onesided:
        if return_complex:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        frames = _fft.irfft(frames, n=n_fft)
    else:
        frames = _fft.ifft(frames, n=n_fft)
        if not return_complex:
            frames = _ops.real(frames)
    w = _padded_window(window, n_fft, win_length, frames if frames.dtype.is_floating_point else
                       _ops.real(frames), "istft")
    frames = frames * w
    batch, n_frames = frames.shape[0], frames.shape[1]
    total = n_fft + hop * (n_frames - 1)
    idx = _frame_index(n_frames, n_fft, hop).reshape(-1)
    y = _ops.zeros(batch, total, dtype=frames.dtype).index_add(1, idx, frames.reshape(batch, -1))
    env = _ops.zeros(total, dtype=w.dtype).index_add(0, idx, (w * w).repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    end = min(end, total)
    y, env = y[:, start:end], env[start:end]
    if env.numel() and float(env.abs().min()) < 1e-11:
        raise RuntimeError(f"istft: window overlap add min: {float(env.abs().min()):g}")
    y = y / env
    if length is not None and y.shape[-1] < length:
        y = _ops.cat([y, _ops.zeros(batch, length - y.shape[-1], dtype=y.dtype)], -1)
    return y.squeeze(0) if input.ndim == 2 else y
