"""MaxPool1d, AvgPool1d, AdaptiveAvgPool1d, AdaptiveMaxPool1d/2d and the padding layers (ZeroPad, ConstantPad,
ReflectionPad, ReplicationPad, CircularPad) against PyTorch's: values, indices, gradients, reprs; errors."""
import numpy as np
import pytest

import loom
from loom import nn
import loom.nn.functional as F
from test_nn_layers import check_module, rand, RNG, torch

tnn = torch.nn


def distinct(*shape):
    """Values without ties, so that the argmax (and the gradient through it) is the same in both libraries."""
    return RNG.permutation(int(np.prod(shape))).astype(np.float32).reshape(shape) / 10


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=3, stride=1, dilation=2), dict(kernel_size=(3,), stride=(2,))], ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 11), (3, 10)], ids=str)
def test_max_pool1d(kw, shape):
    check_module(tnn.MaxPool1d(**kw), nn.MaxPool1d(**kw), distinct(*shape))
    x = distinct(*shape)
    lv, li = nn.MaxPool1d(**kw, return_indices=True)(loom.tensor(x))
    tv, ti = tnn.MaxPool1d(**kw, return_indices=True)(torch.tensor(x))
    np.testing.assert_array_equal(lv.numpy(), tv.numpy())
    np.testing.assert_array_equal(li.numpy(), ti.numpy())


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                                          count_include_pad=False), dict(kernel_size=4, stride=1)],
                         ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 11), (3, 10)], ids=str)
def test_avg_pool1d(kw, shape):
    check_module(tnn.AvgPool1d(**kw), nn.AvgPool1d(**kw), rand(*shape))


@pytest.mark.parametrize("size", [3, 1, 7, 10], ids=str)
def test_adaptive_pool1d(size):
    check_module(tnn.AdaptiveAvgPool1d(size), nn.AdaptiveAvgPool1d(size), rand(2, 3, 7))
    check_module(tnn.AdaptiveMaxPool1d(size), nn.AdaptiveMaxPool1d(size), distinct(2, 3, 7))
    check_module(tnn.AdaptiveMaxPool1d(size), nn.AdaptiveMaxPool1d(size), distinct(3, 7))


@pytest.mark.parametrize("size", [(3, 2), 1, (None, 3), (7, 5), (4, 6)], ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 7, 5), (3, 6, 4)], ids=str)
def test_adaptive_max_pool2d(size, shape):
    check_module(tnn.AdaptiveMaxPool2d(size), nn.AdaptiveMaxPool2d(size), distinct(*shape))
    x = distinct(*shape)
    lv, li = F.adaptive_max_pool2d(loom.tensor(x), size, return_indices=True)
    tv, ti = torch.nn.functional.adaptive_max_pool2d(torch.tensor(x), size, return_indices=True)
    np.testing.assert_array_equal(lv.numpy(), tv.numpy())
    np.testing.assert_array_equal(li.numpy(), ti.numpy())
    assert li.dtype == loom.int64


def test_adaptive_max_pool_integers_and_gradcheck():
    x = RNG.integers(-50, 50, size=(2, 5, 6))
    np.testing.assert_array_equal(F.adaptive_max_pool2d(loom.tensor(x), (2, 4)).numpy(),
                                  torch.nn.functional.adaptive_max_pool2d(torch.tensor(x * 1.0), (2, 4)).numpy())
    t = loom.tensor(distinct(1, 2, 5, 6).astype(np.float64), requires_grad=True)
    assert loom.autograd.gradcheck(lambda a: F.adaptive_max_pool2d(a, (2, 4)), [t])
    assert loom.autograd.gradcheck(lambda a: F.max_pool1d(a[0], 3, 2, 1), [t])
    assert loom.autograd.gradcheck(lambda a: F.avg_pool1d(a[0], 3, 2, 1, ceil_mode=True), [t])
    assert loom.autograd.gradgradcheck(lambda a: F.adaptive_avg_pool1d(a[0], 4), [t])


def test_pool_errors():
    with pytest.raises(ValueError, match=r"^max_pool1d\(\): expected a 2-D \(C, L\) or 3-D \(N, C, L\) input, got 4-D"):
        F.max_pool1d(loom.zeros(1, 2, 3, 4), 2)
    with pytest.raises(ValueError, match=r"^avg_pool1d\(\): kernel_size must be an int or 1 ints"):
        F.avg_pool1d(loom.zeros(1, 2, 3), (2, 2))
    with pytest.raises(ValueError, match=r"^adaptive_max_pool2d\(\): expected non-empty input planes and a positive "
                                         r"output_size"):
        F.adaptive_max_pool2d(loom.zeros(1, 2, 3, 4), 0)
    with pytest.raises(ValueError, match=r"^adaptive_max_pool2d\(\): expected a 3-D \(C, H, W\) or 4-D"):
        F.adaptive_max_pool2d(loom.zeros(3, 4), 2)


PADS = [("ZeroPad", 2, None), ("ZeroPad", (1, 0, 2, 3), None), ("ConstantPad", (1, 2, 0, 1), 3.5),
        ("ConstantPad", 1, -1.0), ("ReflectionPad", (2, 1, 1, 0), None), ("ReflectionPad", 1, None),
        ("ReplicationPad", (3, 0, 1, 2), None), ("CircularPad", (1, 2, 2, 1), None)]


@pytest.mark.parametrize("kind,padding,value", PADS, ids=str)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_padding_layers(kind, padding, value, n):
    if not isinstance(padding, int):
        padding = (padding * 2)[:2 * n]
    args = (padding,) if value is None else (padding, value)
    tm, lm = getattr(tnn, f"{kind}{n}d")(*args), getattr(nn, f"{kind}{n}d")(*args)
    assert lm.padding == tm.padding
    shape = (2, 3, 4, 5, 6)[-(n + 1):]   # unbatched
    check_module(tm, lm, rand(*shape))
    check_module(tm, lm, rand(2, *shape))


def test_padding_layer_errors_come_from_pad():
    with pytest.raises(ValueError, match=r"^pad\(\): Padding size should be less than the corresponding input"):
        nn.ReflectionPad2d(4)(loom.zeros(1, 1, 3, 3))
    with pytest.raises(ValueError, match=r"padding must be an int or 4 ints"):
        nn.ZeroPad2d((1, 2, 3))
