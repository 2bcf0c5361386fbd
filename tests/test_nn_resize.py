"""F.interpolate / nn.Upsample (nearest, nearest-exact, linear, bilinear with align_corners both ways, area; size or
scale_factor) and PixelShuffle / PixelUnshuffle against PyTorch's: values (the same pixels exactly for the nearest
modes), input gradients, gradcheck, errors."""
import numpy as np
import pytest

import loom
from loom import nn
import loom.nn.functional as F
from test_nn_layers import check_module, rand, torch

tF = torch.nn.functional

SIZES = [dict(size=(9, 4)), dict(size=(10, 14)), dict(size=5), dict(scale_factor=1.7), dict(scale_factor=(2, 0.5)),
         dict(scale_factor=1.1), dict(scale_factor=(3.3, 1.5), recompute_scale_factor=True),
         dict(scale_factor=0.3), dict(scale_factor=(1.1, 2.0))]
MODES = [("nearest", None), ("nearest-exact", None), ("bilinear", False), ("bilinear", True), ("area", None)]


@pytest.mark.parametrize("mode,align_corners", MODES, ids=str)
@pytest.mark.parametrize("kw", SIZES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_interpolate_2d(mode, align_corners, kw, dtype):
    x = rand(2, 3, 5, 7, dtype=dtype)
    lx, tx = loom.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ly = F.interpolate(lx, mode=mode, align_corners=align_corners, **kw)
    ty = tF.interpolate(tx, mode=mode, align_corners=align_corners, **kw)
    exact = mode.startswith("nearest")
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), atol=0 if exact else 1e-5, rtol=1e-5)
    g = rand(*ty.shape, dtype=dtype)
    ly.backward(loom.tensor(g)), ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("mode,align_corners", [("nearest", None), ("nearest-exact", None), ("linear", False),
                                                ("linear", True), ("area", None)], ids=str)
@pytest.mark.parametrize("kw", [dict(size=13), dict(size=4), dict(scale_factor=0.6), dict(scale_factor=2.5)], ids=str)
def test_interpolate_1d(mode, align_corners, kw):
    x = rand(2, 3, 9)
    ly = F.interpolate(loom.tensor(x), mode=mode, align_corners=align_corners, **kw)
    ty = tF.interpolate(torch.tensor(x), mode=mode, align_corners=align_corners, **kw)
    np.testing.assert_allclose(ly.numpy(), ty.numpy(), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("args", [dict(scale_factor=2), dict(size=(7, 3), mode="bilinear"),
                                  dict(scale_factor=(1.5, 2), mode="bilinear", align_corners=True),
                                  dict(size=6, mode="nearest-exact")], ids=str)
def test_upsample_module(args):
    check_module(torch.nn.Upsample(**args), nn.Upsample(**args), rand(2, 3, 4, 5))


@pytest.mark.parametrize("cls", ["UpsamplingNearest2d", "UpsamplingBilinear2d"])
def test_upsampling_modules(cls):
    check_module(getattr(torch.nn, cls)(scale_factor=2), getattr(nn, cls)(scale_factor=2), rand(1, 2, 3, 4))
    check_module(getattr(torch.nn, cls)(size=(5, 7)), getattr(nn, cls)(size=(5, 7)), rand(1, 2, 3, 4))


@pytest.mark.parametrize("dtype", [loom.float32, loom.float64, loom.int64, loom.uint8])
def test_dtype_is_kept(dtype):
    x = loom.tensor(rand(1, 1, 3, 3) * 10).to(dtype)
    if dtype.is_floating_point:
        assert F.interpolate(x, scale_factor=2, mode="bilinear").dtype == dtype
    out = F.interpolate(x, scale_factor=2)   # nearest picks pixels, so any dtype
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy(), x.numpy().repeat(2, -1).repeat(2, -2))


def test_gradcheck():
    x = loom.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 4)), requires_grad=True)
    for mode, ac in [("bilinear", False), ("bilinear", True), ("nearest", None), ("nearest-exact", None)]:
        f = lambda t: F.interpolate(t, size=(5, 3), mode=mode, align_corners=ac)
        assert loom.autograd.gradcheck(f, [x])
        assert loom.autograd.gradgradcheck(f, [x])


def test_interpolate_errors():
    x = loom.zeros(1, 2, 3, 4)
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        F.interpolate(x, size=4, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="align_corners option can only be set with the interpolating modes"):
        F.interpolate(x, size=4, align_corners=True)
    with pytest.raises(ValueError, match="Input and output must have the same number of spatial dimensions"):
        F.interpolate(x, size=(4, 4, 4))
    with pytest.raises(ValueError, match="recompute_scale_factor is not meaningful with an explicit size"):
        F.interpolate(x, size=4, recompute_scale_factor=True)
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D input"):
        F.interpolate(loom.zeros(1, 2, 3), size=4, mode="bilinear")
    with pytest.raises(NotImplementedError, match="mode 'bicubic' is not supported"):
        F.interpolate(x, size=4, mode="bicubic")
    with pytest.raises(ValueError, match=r"^upsample_nearest2d\(\): Input and output sizes should be greater than 0"):
        F.interpolate(x, scale_factor=0.2)
    with pytest.raises(ValueError, match=r"^upsample_bilinear2d\(\): expected a 3-D \(C, H, W\) or 4-D"):
        loom.upsample_bilinear2d(loom.zeros(3, 4), [2, 2], False)
    with pytest.raises(TypeError, match=r"^upsample_nearest2d\(\): argument 'scales_h' must be float, not str"):
        loom.upsample_nearest2d(x, [2, 2], "2")


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((9, 2, 3), 3), ((2, 3, 4, 2, 1), 1), ((1, 2, 18, 5, 2), 3)],
                         ids=str)
def test_pixel_shuffle_and_unshuffle(shape, r):
    x = rand(*shape)
    check_module(torch.nn.PixelShuffle(r), nn.PixelShuffle(r), x)
    y = rand(*shape[:-3], shape[-3] // (r * r), shape[-2] * r, shape[-1] * r)
    check_module(torch.nn.PixelUnshuffle(r), nn.PixelUnshuffle(r), y)
    np.testing.assert_array_equal(F.pixel_unshuffle(F.pixel_shuffle(loom.tensor(x), r), r).numpy(), x)


def test_pixel_shuffle_errors():
    with pytest.raises(ValueError, match=r"^pixel_shuffle\(\): pixel_shuffle expects its input's 'channel' dimension "
                                         r"to be divisible by the square of upscale_factor, but input.size\(-3\)=6 is "
                                         r"not divisible by 4"):
        F.pixel_shuffle(loom.zeros(1, 6, 2, 2), 2)
    with pytest.raises(ValueError, match=r"expects input to have at least 3 dimensions"):
        F.pixel_shuffle(loom.zeros(4, 2), 2)
    with pytest.raises(ValueError, match=r"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                                         r"input.size\(-1\)=5 is not divisible by 2"):
        F.pixel_unshuffle(loom.zeros(1, 1, 4, 5), 2)
    with pytest.raises(ValueError, match=r"expects a positive upscale_factor, but got 0"):
        F.pixel_shuffle(loom.zeros(1, 4, 2, 2), 0)
