"""loom.nn.init: distributions (moments and bounds over many draws), fans, gains, in-place behaviour."""
import math

import numpy as np
import pytest

import loom
from loom import nn
from loom.nn import init


@pytest.fixture(autouse=True)
def _seed():
    loom.manual_seed(1234)


def _draws(shape=(400, 500), dtype=loom.float32):
    return nn.Parameter(loom.zeros(*shape, dtype=dtype))


def test_uniform_bounds_and_moments():
    t = _draws()
    assert init.uniform_(t, -2.0, 3.0) is t
    a = t.detach().numpy()
    assert a.min() >= -2.0 and a.max() < 3.0
    assert abs(a.mean() - 0.5) < 0.02 and abs(a.var() - 25 / 12) < 0.03
    assert t.requires_grad and t.is_leaf   # filled under no_grad, still a leaf


def test_normal_moments_float64():
    t = _draws(dtype=loom.float64)
    init.normal_(t, mean=1.5, std=0.5)
    a = t.detach().numpy()
    assert t.dtype == loom.float64
    assert abs(a.mean() - 1.5) < 0.005 and abs(a.std() - 0.5) < 0.005


def test_constant_ones_zeros():
    t = _draws((3, 4))
    init.constant_(t, 0.25)
    assert np.all(t.detach().numpy() == 0.25)
    init.ones_(t)
    assert np.all(t.detach().numpy() == 1.0)
    init.zeros_(t)
    assert not t.detach().numpy().any()


def test_fans():
    assert init._calculate_fan_in_and_fan_out(loom.zeros(5, 3)) == (3, 5)
    assert init._calculate_fan_in_and_fan_out(loom.zeros(8, 4, 3, 2)) == (24, 48)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(loom.zeros(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(loom.zeros(3, 3), mode="fan_avg")


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", "x")


@pytest.mark.parametrize("shape", [(300, 400), (64, 16, 5, 5)])
def test_xavier(shape):
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(loom.zeros(*shape))
    std = 2.0 * math.sqrt(2.0 / (fan_in + fan_out))
    t = init.xavier_uniform_(_draws(shape), gain=2.0).detach().numpy()
    bound = math.sqrt(3) * std
    assert t.min() >= -bound and t.max() <= bound and t.max() > 0.95 * bound
    assert abs(t.std() / std - 1) < 0.02
    t = init.xavier_normal_(_draws(shape), gain=2.0).detach().numpy()
    assert abs(t.std() / std - 1) < 0.02 and abs(t.mean()) < 0.05 * std


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
def test_kaiming(mode):
    shape = (200, 30, 3, 3)
    fan = 30 * 9 if mode == "fan_in" else 200 * 9
    std = math.sqrt(2.0) / math.sqrt(fan)
    t = init.kaiming_uniform_(_draws(shape), mode=mode, nonlinearity="relu").detach().numpy()
    assert np.abs(t).max() <= math.sqrt(3) * std and abs(t.std() / std - 1) < 0.02
    t = init.kaiming_normal_(_draws(shape), mode=mode, nonlinearity="relu").detach().numpy()
    assert abs(t.std() / std - 1) < 0.02


def test_kaiming_uniform_a_sqrt5_is_linear_default_bound():
    t = init.kaiming_uniform_(_draws((100, 400)), a=math.sqrt(5)).detach().numpy()
    bound = 1 / math.sqrt(400)
    assert np.abs(t).max() <= bound and np.abs(t).max() > 0.99 * bound


def test_zero_element_tensor_is_a_no_op_with_warning():
    with pytest.warns(UserWarning, match="zero-element"):
        init.kaiming_uniform_(loom.zeros(0, 3))


def test_seeded_reproducibly():
    loom.manual_seed(7)
    a = init.normal_(loom.zeros(10)).numpy().copy()
    loom.manual_seed(7)
    b = init.normal_(loom.zeros(10)).numpy()
    np.testing.assert_array_equal(a, b)


def test_default_layer_initialisation():
    lin = nn.Linear(50, 200)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    bound = 1 / math.sqrt(50)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound and np.abs(w).max() > 0.9 * bound
    conv = nn.Conv2d(4, 8, 3)
    bound = 1 / math.sqrt(4 * 9)
    assert np.abs(conv.weight.detach().numpy()).max() <= bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound
    bn = nn.BatchNorm2d(3)
    assert bn.weight.tolist() == [1.0] * 3 and bn.bias.tolist() == [0.0] * 3
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3
    assert bn.num_batches_tracked.item() == 0 and bn.num_batches_tracked.dtype == loom.int64
    ln = nn.LayerNorm((2, 3))
    assert np.all(ln.weight.detach().numpy() == 1) and not ln.bias.detach().numpy().any()
    emb = nn.Embedding(1000, 20, padding_idx=3).weight.detach().numpy()
    assert not emb[3].any() and abs(np.delete(emb, 3, 0).std() - 1) < 0.03


_RANDOM_INITS = [(init.uniform_, {"a": -2.0, "b": 3.0}), (init.normal_, {"mean": 1.0, "std": 0.5}),
                 (init.xavier_uniform_, {}), (init.xavier_normal_, {}), (init.kaiming_uniform_, {"a": math.sqrt(5)}),
                 (init.kaiming_normal_, {"mode": "fan_out"})]


@pytest.mark.parametrize("fn,kwargs", _RANDOM_INITS, ids=[f.__name__ for f, _ in _RANDOM_INITS])
@pytest.mark.parametrize("dtype", [loom.float32, loom.float64])
def test_generator_gives_the_same_weights_for_the_same_seed(fn, kwargs, dtype):
    def fill(seed):
        t = _draws((60, 70), dtype)
        assert fn(t, generator=loom.Generator().manual_seed(seed), **kwargs) is t
        assert t.dtype == dtype and t.requires_grad and t.is_leaf
        return t.detach().numpy().copy()
    a = fill(5)
    np.testing.assert_array_equal(a, fill(5))
    assert not np.array_equal(a, fill(6))
    g = loom.Generator().manual_seed(5)   # one generator goes on drawing new values
    assert not np.array_equal(fn(_draws((60, 70), dtype), generator=g, **kwargs).detach().numpy(),
                              fn(_draws((60, 70), dtype), generator=g, **kwargs).detach().numpy())


def test_generator_leaves_the_global_stream_alone():
    loom.manual_seed(3)
    want = loom.rand(5).numpy()
    loom.manual_seed(3)
    init.kaiming_uniform_(loom.zeros(4, 4), generator=loom.Generator().manual_seed(0))
    np.testing.assert_array_equal(loom.rand(5).numpy(), want)


def test_without_generator_draws_from_the_global_stream():
    loom.manual_seed(3)
    want = (loom.rand(7) * 4 - 1).numpy()
    loom.manual_seed(3)
    np.testing.assert_array_equal(init.uniform_(loom.zeros(7), -1.0, 3.0).numpy(), want)


def test_generator_draws_have_the_distribution():
    g = loom.Generator().manual_seed(0)
    u = init.uniform_(_draws(), -2.0, 3.0, generator=g).detach().numpy()
    assert u.min() >= -2.0 and u.max() < 3.0
    assert abs(u.mean() - 0.5) < 0.02 and abs(u.var() - 25 / 12) < 0.03
    n = init.normal_(_draws(dtype=loom.float64), 1.5, 0.5, generator=g).detach().numpy()
    assert abs(n.mean() - 1.5) < 0.005 and abs(n.std() - 0.5) < 0.005
    std = math.sqrt(2.0) / math.sqrt(500)
    k = init.kaiming_normal_(_draws(), nonlinearity="relu", generator=g).detach().numpy()
    assert abs(k.std() / std - 1) < 0.02


def test_generator_must_be_a_loom_generator():
    with pytest.raises(TypeError,
                       match=r"^xavier_normal_\(\): argument 'generator' must be loom.Generator, not Generator$"):
        init.xavier_normal_(loom.zeros(3, 3), generator=np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"^uniform_\(\): argument 'generator' must be loom.Generator, not int$"):
        init.uniform_(loom.zeros(3), generator=0)


def test_eye_dirac_and_the_deprecated_spellings():
    torch = pytest.importorskip("torch")
    w = loom.empty(3, 5)
    assert loom.nn.init.eye_(w) is w and w.numpy().tolist() == torch.eye(3, 5).tolist()
    for shape, groups in (((4, 2, 3), 1), ((6, 4, 3, 3), 2), ((2, 2, 3, 3, 3), 1)):
        a, t = loom.empty(*shape), torch.empty(*shape)
        loom.nn.init.dirac_(a, groups)
        torch.nn.init.dirac_(t, groups)
        assert a.numpy().tolist() == t.numpy().tolist()
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        loom.nn.init.dirac_(loom.empty(2, 2))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        loom.nn.init.dirac_(loom.empty(3, 2, 3), 2)
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        loom.nn.init.eye_(loom.empty(2, 2, 2))
    with pytest.warns(FutureWarning, match=r"`nn.init.normal` is now deprecated in favor of `nn.init.normal_`"):
        loom.nn.init.normal(loom.empty(3))
    with pytest.warns(FutureWarning, match="kaiming_uniform"):
        loom.nn.init.kaiming_uniform(loom.empty(3, 3))
