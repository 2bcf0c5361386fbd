"""Sampling ops (ops/random.yaml, python/loom/_sampling.py): distributions checked statistically with fixed
seeds and generous bounds, reproducibility by seed and Generator, and PyTorch's errors."""
import numpy as np
import pytest

import loom


def same(a, b):
    return a.shape == b.shape and bool((a == b).all().item())


def counts(x, n):
    return np.bincount(x.numpy().ravel(), minlength=n)


def test_multinomial_with_replacement_matches_probabilities():
    loom.manual_seed(0)
    p = loom.tensor([0.1, 0.0, 0.3, 0.6])
    s = loom.multinomial(p, 20000, replacement=True)
    assert s.dtype == loom.int64 and s.shape == (20000,)
    f = counts(s, 4) / 20000
    assert f[1] == 0
    np.testing.assert_allclose(f, [0.1, 0, 0.3, 0.6], atol=0.02)


def test_multinomial_without_replacement_distinct_and_ordered_by_weight():
    loom.manual_seed(1)
    p = loom.tensor([[1.0, 2.0, 3.0, 4.0, 90.0]] * 500)
    s = p.multinomial(3)
    assert s.shape == (500, 3)
    rows = s.numpy()
    assert all(len(set(r)) == 3 for r in rows)
    assert (rows[:, 0] == 4).mean() > 0.85          # the heavy category comes first nearly always
    one = loom.multinomial(loom.tensor([0.2, 0.8]).repeat(4000, 1), 1)
    assert abs(one.float().mean().item() - 0.8) < 0.03


def test_multinomial_generator_reproducible_and_independent_of_global():
    p = loom.rand(50)
    a = loom.multinomial(p, 10, True, generator=loom.Generator().manual_seed(3))
    loom.manual_seed(99)
    b = loom.multinomial(p, 10, True, generator=loom.Generator().manual_seed(3))
    assert same(a, b)
    loom.manual_seed(5)
    c = loom.multinomial(p, 10, True)
    loom.manual_seed(5)
    assert same(c, loom.multinomial(p, 10, True))


@pytest.mark.parametrize("args, msg", [
    ((loom.tensor([[1.0, -1.0]]), 1), "element < 0"),
    ((loom.zeros(3), 1), "sum of probabilities <= 0"),
    ((loom.ones(2, 2, 2), 1), "1 or 2 dim"),
    ((loom.ones(3), 0), "n_sample <= 0"),
    ((loom.ones(3), 4), "without replacement"),
    ((loom.tensor([1.0, float("nan")]), 1), "nan"),
])
def test_multinomial_errors(args, msg):
    with pytest.raises(RuntimeError, match=msg):
        loom.multinomial(*args)


def test_randperm():
    loom.manual_seed(0)
    r = loom.randperm(100)
    assert r.dtype == loom.int64 and sorted(r.tolist()) == list(range(100))
    assert r.tolist() != list(range(100))
    g1, g2 = loom.Generator().manual_seed(7), loom.Generator().manual_seed(7)
    assert same(loom.randperm(30, generator=g1), loom.randperm(30, generator=g2))
    assert loom.randperm(0).shape == (0,)
    assert loom.randperm(5, dtype=loom.float32).dtype == loom.float32
    with pytest.raises(RuntimeError, match="negative dimension"):
        loom.randperm(-1)
    # every position is uniform: the first element's histogram is flat
    firsts = [loom.randperm(4)[0].item() for _ in range(2000)]
    np.testing.assert_allclose(np.bincount(firsts, minlength=4) / 2000, 0.25, atol=0.04)


@pytest.mark.parametrize("fill, args, mean, var", [
    ("uniform_", (2.0, 5.0), 3.5, 9 / 12),
    ("normal_", (1.0, 2.0), 1.0, 4.0),
    ("exponential_", (2.0,), 0.5, 0.25),
    ("bernoulli_", (0.3,), 0.3, 0.21),
    ("log_normal_", (0.0, 0.5), np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
    ("geometric_", (0.25,), 4.0, 0.75 / 0.0625),
])
def test_in_place_fills_moments(fill, args, mean, var):
    loom.manual_seed(2)
    x = getattr(loom.empty(50000, dtype=loom.float64), fill)(*args)
    a = x.numpy()
    assert abs(a.mean() - mean) < 0.05 * max(1, abs(mean)) and abs(a.var() - var) < 0.1 * max(1, var)
    if fill == "uniform_":
        assert a.min() >= 2 and a.max() < 5


def test_fills_keyword_generator_and_noncontiguous():
    g = loom.Generator().manual_seed(4)
    a = loom.empty(3, 4).normal_(mean=0.0, std=1.0, generator=g)
    b = loom.empty(3, 4).normal_(0.0, 1.0, generator=loom.Generator().manual_seed(4))
    assert same(a, b)
    t = loom.zeros(4, 6)
    t[:, ::2].uniform_(1, 2)
    assert (t[:, 1::2] == 0).all().item() and (t[:, ::2] >= 1).all().item()
    m = loom.zeros(1000)
    m.bernoulli_(loom.full((1000,), 0.9))
    assert 0.85 < m.mean().item() < 0.95


@pytest.mark.parametrize("call, msg", [
    (lambda: loom.empty(3).exponential_(-1), "lambda > 0"),
    (lambda: loom.empty(3).bernoulli_(2), r"\[0, 1\]"),
    (lambda: loom.empty(3).normal_(0, -1), "std >= 0"),
    (lambda: loom.empty(3).uniform_(2, 1), "from=2 > to=1"),
    (lambda: loom.empty(3, dtype=loom.int64).normal_(), "floating point"),
    (lambda: loom.poisson(loom.tensor([-2.0])), "non-negative"),
    (lambda: loom.bernoulli(loom.tensor([2.0])), r"\[0, 1\]"),
    (lambda: loom.multinomial(loom.ones(3), 1, generator=3), "Generator"),
])
def test_sampling_errors(call, msg):
    with pytest.raises((RuntimeError, TypeError), match=msg):
        call()


def test_bernoulli_poisson_normal_out_of_place():
    loom.manual_seed(3)
    p = loom.tensor([0.0, 1.0, 0.25]).repeat(4000, 1)
    b = loom.bernoulli(p)
    np.testing.assert_allclose(b.mean(0).numpy(), [0, 1, 0.25], atol=0.03)
    assert loom.bernoulli(loom.zeros(5), 1.0).sum().item() == 5
    for rate in (0.5, 4.0, 30.0, 1000.0):
        x = loom.poisson(loom.full((20000,), rate, dtype=loom.float64)).numpy()
        assert np.all(x == np.round(x))
        assert abs(x.mean() - rate) < 0.05 * rate + 0.02 and abs(x.var() - rate) < 0.1 * rate + 0.05
    n = loom.normal(loom.tensor([0.0, 10.0]).repeat(5000, 1), loom.tensor([1.0, 0.1]))
    np.testing.assert_allclose(n.mean(0).numpy(), [0, 10], atol=0.05)
    np.testing.assert_allclose(n.std(0).numpy(), [1, 0.1], rtol=0.05)
    s = loom.normal(2.0, 3.0, size=(20000,))
    assert abs(s.mean().item() - 2) < 0.1 and abs(s.std().item() - 3) < 0.1


def test_generator_on_rand_randn_randint():
    g = lambda: loom.Generator().manual_seed(11)  # noqa: E731
    assert same(loom.rand(2, 3, generator=g()), loom.rand((2, 3), generator=g()))
    assert same(loom.randn(5, generator=g()), loom.randn(5, generator=g()))
    r = loom.randint(3, 7, (2000,), generator=g())
    assert r.dtype == loom.int64 and r.min().item() == 3 and r.max().item() == 6
    assert loom.randint(5, (3,)).max().item() < 5
    assert loom.rand(2, 2).shape == (2, 2) and loom.randn(3, requires_grad=True).requires_grad


@pytest.mark.parametrize("alpha", [0.3, 1.0, 4.5, 50.0])
def test_standard_gamma_moments(alpha):
    from loom._sampling import _standard_gamma
    loom.manual_seed(4)
    x = _standard_gamma(loom.full((40000,), alpha, dtype=loom.float64)).numpy()
    assert (x > 0).all()
    assert abs(x.mean() - alpha) < 0.03 * alpha + 0.01 and abs(x.var() - alpha) < 0.08 * alpha + 0.01
    with pytest.raises(RuntimeError, match="positive concentration"):
        _standard_gamma(loom.tensor([0.0]))
