"""loom.fft against numpy.fft (values, every length kind: powers of two, mixed radices,
primes through Bluestein), against torch.fft (dtypes, norms, gradients), and its errors."""
import numpy as np
import pytest

import loom
from loom.autograd import gradcheck

torch = pytest.importorskip("torch")

LENGTHS = [1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 30, 64, 97, 100, 243, 1000, 1024, 1031, 4096]
NORMS = [None, "backward", "ortho", "forward"]


def cdata(shape, dtype=np.complex128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def rdata(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def close(got, want, dtype):
    tol = dict(rtol=1e-4, atol=1e-4) if dtype in (np.complex64, np.float32) else dict(rtol=1e-10, atol=1e-10)
    scale = max(1.0, float(np.abs(want).max(initial=0)))
    np.testing.assert_allclose(got.numpy(), want, rtol=tol["rtol"], atol=tol["atol"] * scale)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_fft_and_ifft_every_length(n, dtype):
    x = cdata((3, n), dtype)
    close(loom.fft.fft(loom.from_numpy(x)), np.fft.fft(x), dtype)
    close(loom.fft.ifft(loom.from_numpy(x)), np.fft.ifft(x), dtype)


@pytest.mark.parametrize("n", LENGTHS)
def test_rfft_irfft_hfft_ihfft(n):
    x = rdata((2, n))
    close(loom.fft.rfft(loom.from_numpy(x)), np.fft.rfft(x), np.float64)
    close(loom.fft.ihfft(loom.from_numpy(x)), np.fft.ihfft(x), np.float64)
    spec = cdata((2, n // 2 + 1))
    close(loom.fft.irfft(loom.from_numpy(spec), n=n), np.fft.irfft(spec, n=n), np.float64)
    close(loom.fft.hfft(loom.from_numpy(spec), n=n), np.fft.hfft(spec, n=n), np.float64)


@pytest.mark.parametrize("norm", NORMS)
def test_norms_and_n_match_numpy(norm):
    x = cdata((4, 10))
    for n in (None, 6, 16):   # as is, trimmed, zero-padded
        close(loom.fft.fft(loom.from_numpy(x), n=n, dim=0, norm=norm), np.fft.fft(x, n=n, axis=0, norm=norm),
              np.complex128)
        close(loom.fft.ifft(loom.from_numpy(x), n=n, norm=norm), np.fft.ifft(x, n=n, norm=norm), np.complex128)
    r = rdata((5, 9))
    close(loom.fft.rfft(loom.from_numpy(r), n=12, norm=norm), np.fft.rfft(r, n=12, norm=norm), np.float64)
    close(loom.fft.irfft(loom.from_numpy(x), n=7, norm=norm), np.fft.irfft(x, n=7, norm=norm), np.float64)


def test_n_dimensional_transforms():
    x, r = cdata((3, 4, 5)), rdata((3, 4, 6))
    lx, lr = loom.from_numpy(x), loom.from_numpy(r)
    close(loom.fft.fftn(lx), np.fft.fftn(x), np.complex128)
    close(loom.fft.ifftn(lx, s=(5, 3), dim=(0, 2)), np.fft.ifftn(x, s=(5, 3), axes=(0, 2)), np.complex128)
    close(loom.fft.fft2(lx), np.fft.fft2(x), np.complex128)
    close(loom.fft.ifft2(lx, norm="ortho"), np.fft.ifft2(x, norm="ortho"), np.complex128)
    close(loom.fft.rfftn(lr), np.fft.rfftn(r), np.float64)
    close(loom.fft.rfft2(lr, s=(5, 8)), np.fft.rfft2(r, s=(5, 8)), np.float64)
    spec = np.fft.rfftn(r)
    close(loom.fft.irfftn(loom.from_numpy(spec), s=r.shape), np.fft.irfftn(spec, s=r.shape), np.float64)
    close(loom.fft.irfft2(loom.from_numpy(spec)), np.fft.irfft2(spec), np.float64)


def test_strided_inputs_and_real_inputs_to_complex_transforms():
    x = cdata((6, 8))
    lx = loom.from_numpy(x).t()   # transposed: the kernel reads strides
    close(loom.fft.fft(lx, dim=0), np.fft.fft(x.T, axis=0), np.complex128)
    r = rdata((4, 6), np.float32)
    got = loom.fft.fft(loom.from_numpy(r))
    assert got.dtype is loom.complex64
    close(got, np.fft.fft(r), np.complex64)
    assert loom.fft.fft(loom.arange(4)).dtype is loom.complex64   # integers: the default float's complex
    assert loom.fft.rfft(loom.ones(8, dtype=loom.float64)).dtype is loom.complex128


def test_prime_lengths_through_bluestein_are_accurate():
    for n in (101, 1009, 10007):
        x = cdata((n,), np.complex64)
        close(loom.fft.fft(loom.from_numpy(x)), np.fft.fft(x.astype(np.complex128)), np.complex64)
        y = cdata((n,))
        np.testing.assert_allclose(loom.fft.ifft(loom.fft.fft(loom.from_numpy(y))).numpy(), y, atol=1e-11)


def rel_err(got, want):
    return float(np.abs(got - want).max() / np.abs(want).max())


# The split batches (rows of complex transforms vectorised across rows: radices 8, 4, 2 and any to 13; a
# partial batch when the rows are not a multiple of the lanes) and the four-step (single transforms from
# 256 points, rows from 2^14, and Bluestein's power-of-two sub-transform), in both precisions, against
# numpy.fft in float64.
SPLIT_CASES = [((40, 1024), -1), ((17, 96), -1), ((33, 8), -1), ((5, 3 * 5 * 7 * 11 * 13), -1), ((16, 64), -1),
               ((1, 2 ** 14), -1), ((2, 2 ** 15), -1), ((1, 19683), -1), ((1, 25200), -1), ((1, 10007), -1),
               ((64, 3, 24), 0), ((24, 20, 3), 1), ((256,), 0), ((1000,), 0), ((12000,), 0), ((4096,), 0)]


@pytest.mark.parametrize("shape,dim", SPLIT_CASES)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_split_batches_and_four_step_are_accurate(shape, dim, dtype):
    x = cdata(shape, dtype, seed=5)
    want = np.fft.fft(x.astype(np.complex128), axis=dim)
    tol = 2e-6 if dtype == np.complex64 else 1e-13
    assert rel_err(loom.fft.fft(loom.from_numpy(x), dim=dim).numpy(), want) < tol
    want_inv = np.fft.ifft(x.astype(np.complex128), axis=dim, norm="ortho")
    assert rel_err(loom.fft.ifft(loom.from_numpy(x), dim=dim, norm="ortho").numpy(), want_inv) < tol


@pytest.mark.parametrize("shape", [(40, 1024), (17, 96), (33, 8), (5, 2310), (3, 4), (16, 6)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_batches_of_real_rows_are_accurate(shape, dtype):   # rfft and irfft
    x = rdata(shape, dtype, seed=10)
    tol = 2e-6 if dtype == np.float32 else 1e-13
    for norm in ("backward", "ortho"):
        want = np.fft.rfft(x.astype(np.float64), norm=norm)
        assert rel_err(loom.fft.rfft(loom.from_numpy(x), norm=norm).numpy(), want) < tol
    assert rel_err(loom.fft.rfft(loom.from_numpy(x.T.copy()), dim=0).numpy(), np.fft.rfft(x.T, axis=0)) < tol
    spec = np.fft.rfft(x.astype(np.float64)).astype(np.complex64 if dtype == np.float32 else np.complex128)
    n = shape[-1]
    for norm in ("backward", "forward"):   # irfft: the same batches backwards
        want = np.fft.irfft(spec.astype(np.complex128), n=n, norm=norm)
        assert rel_err(loom.fft.irfft(loom.from_numpy(spec), n=n, norm=norm).numpy(), want) < tol
    strided = np.ascontiguousarray(spec.T).T   # the spectrum's rows strided in memory
    got = loom.fft.irfft(loom.from_numpy(np.ascontiguousarray(spec.T)).t(), n=n).numpy()
    assert rel_err(got, np.fft.irfft(strided.astype(np.complex128), n=n)) < tol


def test_split_batches_read_and_write_strides():
    x = cdata((1024, 40), seed=6)
    lx = loom.from_numpy(x)
    assert rel_err(loom.fft.fft(lx.t()).numpy(), np.fft.fft(x.T)) < 1e-13   # rows strided in memory
    assert rel_err(loom.fft.fft(lx, dim=0).numpy(), np.fft.fft(x, axis=0)) < 1e-13
    y = cdata((48, 64, 2), np.complex64, seed=7)
    sliced = loom.from_numpy(y)[::3, :, 1]   # every third row, elements two apart
    assert rel_err(loom.fft.fft(sliced).numpy(), np.fft.fft(y[::3, :, 1].astype(np.complex128))) < 2e-6
    assert rel_err(loom.fft.fft2(lx).numpy(), np.fft.fft2(x)) < 1e-13


def test_four_step_of_2_to_the_20_in_float64():
    x = cdata((2 ** 20,), seed=8)
    assert rel_err(loom.fft.fft(loom.from_numpy(x)).numpy(), np.fft.fft(x)) < 1e-13
    r = rdata((2 ** 20,), seed=9)
    assert rel_err(loom.fft.rfft(loom.from_numpy(r)).numpy(), np.fft.rfft(r)) < 1e-13


def test_freqs_and_shifts_match_numpy():
    for n in (1, 6, 7):
        np.testing.assert_allclose(loom.fft.fftfreq(n, d=0.5).numpy(), np.fft.fftfreq(n, d=0.5), rtol=1e-6)
        np.testing.assert_allclose(loom.fft.rfftfreq(n, d=2.0).numpy(), np.fft.rfftfreq(n, d=2.0), rtol=1e-6)
    x = np.arange(24.0).reshape(4, 6)
    np.testing.assert_array_equal(loom.fft.fftshift(loom.from_numpy(x)).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(loom.fft.ifftshift(loom.from_numpy(x), dim=1).numpy(), np.fft.ifftshift(x, axes=1))
    assert loom.fft.fftfreq(4).dtype is loom.float32


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_gradients_match_torch(name, norm):
    real_in = name in ("rfft", "ihfft")
    v = rdata((3, 7)) if real_in else cdata((3, 7))
    lx = loom.tensor(v, requires_grad=True)
    tx = torch.tensor(v, requires_grad=True)
    ly, ty = getattr(loom.fft, name)(lx, norm=norm), getattr(torch.fft, name)(tx, norm=norm)
    assert ly.dtype.name == str(ty.dtype).split(".")[1]
    seed = rdata(tuple(ty.shape), seed=1) + (1j * rdata(tuple(ty.shape), seed=2) if ty.is_complex() else 0)
    ly.backward(loom.tensor(seed))
    ty.backward(torch.tensor(seed))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.resolve_conj().numpy(), rtol=1e-9, atol=1e-10)


def test_gradcheck_through_the_transforms():
    z = loom.tensor(cdata((2, 5)), requires_grad=True)
    r = loom.tensor(rdata((2, 6)), requires_grad=True)
    assert gradcheck(lambda z: loom.fft.fft2(z, norm="ortho"), (z,))
    assert gradcheck(lambda r: loom.fft.rfft(r), (r,))
    assert gradcheck(lambda z: loom.fft.irfft(z, n=8), (z,))
    assert gradcheck(lambda r: loom.fft.rfftn(r).abs(), (r,))


def test_a_training_step_on_a_spectral_loss():
    target = loom.from_numpy(np.abs(np.fft.rfft(rdata((64,), seed=3))))
    w = loom.tensor(rdata((64,), seed=4), requires_grad=True)
    opt = loom.optim.Adam([w], lr=0.05)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = (loom.fft.rfft(w).abs() - target).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_errors():
    with pytest.raises(RuntimeError, match="rfft expects a real input tensor, but got complex64"):
        loom.fft.rfft(loom.ones(4, dtype=loom.complex64))
    with pytest.raises(RuntimeError, match="Invalid number of data points \\(0\\)"):
        loom.fft.fft(loom.ones(4), n=0)
    with pytest.raises(RuntimeError, match="Invalid number of data points \\(0\\)"):
        loom.fft.fft(loom.ones(0))
    with pytest.raises(ValueError, match="Invalid normalization mode"):
        loom.fft.fft(loom.ones(4), norm="sideways")
    with pytest.raises(IndexError):
        loom.fft.fft(loom.ones(4), dim=2)
    with pytest.raises(TypeError, match="must be Tensor"):
        loom.fft.fft([1.0, 2.0])
    with pytest.raises(RuntimeError, match="unique"):
        loom.fft.fftn(loom.ones(2, 2), dim=(0, 0))


# ---- windows, stft and istft (python/loom/_spectral.py)
@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(name, n, periodic):
    got, want = getattr(loom, name)(n, periodic=periodic), getattr(torch, name)(n, periodic=periodic)
    assert got.dtype is loom.float32 and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-6)


STFT_CASES = [dict(n_fft=16), dict(n_fft=16, hop_length=5, win_length=12), dict(n_fft=15, center=False),
              dict(n_fft=16, normalized=True, onesided=False), dict(n_fft=16, pad_mode="constant"),
              dict(n_fft=32, hop_length=8)]


@pytest.mark.parametrize("kw", STFT_CASES, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
@pytest.mark.parametrize("batched", [False, True])
def test_stft_and_istft_match_torch(kw, batched):
    x = rdata((2, 100) if batched else (100,))
    wl = kw.get("win_length", kw["n_fft"])
    lw, tw = loom.hann_window(wl, dtype=loom.float64), torch.hann_window(wl, dtype=torch.float64)
    a = loom.stft(loom.tensor(x), window=lw, return_complex=True, **kw)
    b = torch.stft(torch.tensor(x), window=tw, return_complex=True, **kw)
    np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-12)
    real = loom.tensor(x).stft(window=lw, return_complex=False, **kw)   # the method, as view_as_real
    np.testing.assert_allclose(real.numpy(), torch.view_as_real(b).numpy(), atol=1e-12)
    if kw.get("center", True) and "pad_mode" not in kw:   # the inverse reconstructs the signal
        inv = {k: v for k, v in kw.items() if k != "pad_mode"}
        y = loom.istft(a, window=lw, length=100, **inv)
        np.testing.assert_allclose(y.numpy(), torch.istft(b, window=tw, length=100, **inv).numpy(), atol=1e-12)
        np.testing.assert_allclose(y.numpy(), x, atol=1e-12)


def test_stft_gradients():
    x = loom.tensor(rdata((40,)), requires_grad=True)
    w = loom.hann_window(8, dtype=loom.float64)
    assert gradcheck(lambda x: loom.stft(x, 8, 2, window=w, return_complex=True).abs(), (x,))
    spec = loom.tensor(np.fft.rfft(rdata((16, 8)), axis=0), requires_grad=True)   # (freq 9, frames 8)
    assert gradcheck(lambda s: loom.istft(s, 16, 4, window=loom.hann_window(16, dtype=loom.float64)), (spec,))


def test_stft_errors():
    x = loom.ones(64)
    with pytest.raises(RuntimeError, match="return_complex parameter be given"):
        loom.stft(x, 16)
    with pytest.raises(RuntimeError, match="expected 0 < n_fft"):
        loom.stft(x, 200, return_complex=True, center=False)
    with pytest.raises(RuntimeError, match="expected a 1D or 2D tensor"):
        loom.stft(loom.ones(2, 2, 64), 16, return_complex=True)
    with pytest.raises(RuntimeError, match="win_length"):
        loom.stft(x, 16, win_length=32, return_complex=True)
    with pytest.raises(RuntimeError, match="complex-valued input"):
        loom.istft(x.reshape(8, 8), 14)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        loom.istft(loom.ones(9, 5, dtype=loom.complex64), 16, 4, window=loom.zeros(16))
    with pytest.raises(RuntimeError, match="non-negative window_length"):
        loom.hann_window(-1)
