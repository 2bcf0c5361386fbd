"""Conv1d, ConvTranspose1d/2d (modules and functional) against PyTorch's: the same weights, values and
gradients; PyTorch's default initialisation; gradcheck/gradgradcheck of the composites; argument errors."""
import numpy as np
import pytest

import loom
from loom import nn
import loom.nn.functional as F
from test_nn_layers import check_module, rand, torch

tnn = torch.nn

CONV1D = [dict(), dict(stride=2, padding=1), dict(dilation=2, groups=2, bias=False), dict(padding="same", dilation=2),
          dict(padding="valid"), dict(padding=2, padding_mode="reflect"), dict(padding=1, padding_mode="circular"),
          dict(padding="same", padding_mode="replicate")]


@pytest.mark.parametrize("kw", CONV1D, ids=str)
def test_conv1d_module(kw):
    tm, lm = tnn.Conv1d(4, 6, 4, **kw), nn.Conv1d(4, 6, 4, **kw)
    assert lm._reversed_padding_repeated_twice == tm._reversed_padding_repeated_twice
    check_module(tm, lm, rand(2, 4, 11), atol=1e-4)


def test_conv1d_unbatched():
    check_module(tnn.Conv1d(3, 2, 3), nn.Conv1d(3, 2, 3), rand(3, 7), atol=1e-4)


CONVT2D = [dict(), dict(stride=2), dict(stride=2, padding=1, output_padding=1),
           dict(stride=(3, 2), padding=(2, 0), output_padding=(2, 1), groups=2, bias=False),
           dict(stride=1, dilation=3, output_padding=2, padding=1),   # output_padding past the stride (< dilation)
           dict(stride=2, dilation=(3, 1), output_padding=(2, 1), padding=(3, 0)),
           dict(kernel_size=(2, 4), stride=(1, 2), padding=(0, 1), dilation=(2, 1), groups=4)]


@pytest.mark.parametrize("kw", CONVT2D, ids=str)
def test_conv_transpose2d_module(kw):
    kw = dict(kw)
    k = kw.pop("kernel_size", 3)
    tm, lm = tnn.ConvTranspose2d(4, 8, k, **kw), nn.ConvTranspose2d(4, 8, k, **kw)
    check_module(tm, lm, rand(2, 4, 5, 6), atol=1e-4)


def test_conv_transpose2d_unbatched_and_output_size():
    tm, lm = tnn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    check_module(tm, lm, rand(3, 4, 5), atol=1e-4)
    x = rand(1, 3, 4, 5)
    for size in [(8, 10), (7, 9), [1, 2, 8, 9]]:
        ly, ty = lm(loom.tensor(x), output_size=size), tm(torch.tensor(x), output_size=size)
        np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), atol=1e-5)
    with pytest.raises(ValueError, match=r"requested an output size of \[9, 9\], but valid sizes range from \[7, 9\] "
                                         r"to \[8, 10\]"):
        lm(loom.tensor(x), output_size=(9, 9))


@pytest.mark.parametrize("kw", [dict(), dict(stride=3, padding=1, output_padding=2, groups=2),
                                dict(dilation=2, stride=1, output_padding=1)], ids=str)
def test_conv_transpose1d_module(kw):
    check_module(tnn.ConvTranspose1d(4, 6, 3, **kw), nn.ConvTranspose1d(4, 6, 3, **kw), rand(2, 4, 7), atol=1e-4)
    check_module(tnn.ConvTranspose1d(4, 6, 3, **kw), nn.ConvTranspose1d(4, 6, 3, **kw), rand(4, 7), atol=1e-4)


@pytest.mark.parametrize("cls,args", [("Conv1d", (6, 4, 3)), ("ConvTranspose1d", (6, 4, 3)),
                                      ("ConvTranspose2d", (6, 4, (3, 2))), ("ConvTranspose2d", (4, 6, 3))])
def test_default_initialisation_matches_pytorchs_bounds(cls, args):
    """kaiming_uniform(a=sqrt(5)) on the weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) on the bias, with fan_in from
    the weight's dim 1 (out/groups for a transposed convolution, as PyTorch)."""
    loom.manual_seed(0)
    lm = getattr(nn, cls)(*args, groups=2)
    tm = getattr(tnn, cls)(*args, groups=2)
    assert lm.weight.shape == tuple(tm.weight.shape) and lm.bias.shape == tuple(tm.bias.shape)
    fan_in = tm.weight.shape[1] * int(np.prod(tm.weight.shape[2:]))
    bound = 1 / np.sqrt(fan_in)
    for p in (lm.weight, lm.bias):
        v = p.detach().numpy()
        assert np.abs(v).max() <= bound and np.abs(v).max() > 0.5 * bound
        assert len(np.unique(v)) == v.size


def test_composites_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(2)
    t = lambda *s: loom.tensor(rng.standard_normal(s), requires_grad=True)
    x, w, b = t(1, 4, 3, 4), t(4, 3, 2, 3), t(6)
    f = lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2, dilation=(1, 2))
    assert loom.autograd.gradcheck(f, [x, w, b])
    assert loom.autograd.gradgradcheck(f, [x, w, b])
    f = lambda x, w, b: F.conv_transpose2d(x, w, b, stride=1, padding=1, output_padding=1, groups=2, dilation=2)
    assert loom.autograd.gradcheck(f, [x, w, b])
    x1, w1, b1 = t(2, 4, 6), t(6, 2, 3), t(6)
    g = lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2, groups=2)
    assert loom.autograd.gradcheck(g, [x1, w1, b1])
    assert loom.autograd.gradgradcheck(g, [x1, w1, b1])
    h = lambda x, w: F.conv_transpose1d(x, w, None, stride=2, padding=1, output_padding=1)
    assert loom.autograd.gradcheck(h, [t(2, 3, 4), t(3, 2, 3)])


def test_errors():
    x, w = loom.zeros(1, 4, 5, 5), loom.zeros(4, 2, 3, 3)
    with pytest.raises(ValueError, match=r"^conv_transpose2d\(\): output padding must be smaller than either stride "
                                         r"or dilation"):
        F.conv_transpose2d(x, w, stride=2, output_padding=2)
    with pytest.raises(ValueError, match=r"^conv_transpose2d\(\): Given transposed=1, weight of size \[4, 2, 3, 3\], "
                                         r"expected input\[1, 3, 5, 5\] to have 4 channels, but got 3 channels"):
        F.conv_transpose2d(loom.zeros(1, 3, 5, 5), w)
    with pytest.raises(ValueError, match=r"^conv_transpose2d\(\): Given input size per channel \[5, 5\], calculated "
                                         r"output size \[-5, -5\] is too small"):
        F.conv_transpose2d(x, w, padding=6)
    with pytest.raises(ValueError, match=r"^conv_transpose2d\(\): expected 4-D input"):
        F.conv_transpose2d(loom.zeros(4, 5), w)
    with pytest.raises(ValueError, match=r"^conv_transpose2d\(\): stride must be an int or 2 ints"):
        F.conv_transpose2d(x, w, stride=(1, 2, 3))
    with pytest.raises(ValueError, match=r"^conv_transpose2d\(\): stride and dilation must be positive"):
        F.conv_transpose2d(x, w, stride=0)
    with pytest.raises(ValueError, match=r"^conv1d\(\): expected 3-D input"):
        F.conv1d(loom.zeros(1, 2, 3, 4), loom.zeros(2, 2, 3))
    with pytest.raises(ValueError, match=r"^conv1d\(\): padding='same' is not supported for strided"):
        F.conv1d(loom.zeros(1, 2, 8), loom.zeros(2, 2, 3), stride=2, padding="same")
    with pytest.raises(ValueError, match=r"^conv1d\(\): expected input with 2 channels"):
        F.conv1d(loom.zeros(1, 3, 8), loom.zeros(2, 2, 3))
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
