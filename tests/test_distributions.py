"""loom.distributions against torch.distributions: log_prob, entropy, mean, variance, cdf, kl_divergence and
their gradients from the same parameters; samples checked statistically with fixed seeds."""
import numpy as np
import pytest
torch = pytest.importorskip("torch", reason="PyTorch is not installed: these tests compare with it")

import loom
from loom import distributions as D
from twin import as_pair, close

rng = np.random.default_rng(0)
TD = torch.distributions


def make(name, params):
    """(loom distribution, torch distribution, [(loom param, torch param)]) from NumPy parameters."""
    pairs = {k: as_pair(v, True) for k, v in params.items()}
    ld = getattr(D, name)(**{k: p[0] for k, p in pairs.items()})
    td = getattr(TD, name)(**{k: p[1] for k, p in pairs.items()})
    return ld, td, list(pairs.values())


CASES = {
    "Normal": ({"loc": rng.standard_normal((2, 3)), "scale": rng.random((2, 3)) + 0.5},
               lambda s: rng.standard_normal(s)),
    "Uniform": ({"low": -rng.random(3) - 0.1, "high": rng.random(3) + 0.1}, lambda s: rng.random(s) * 0.09),
    "Bernoulli": ({"probs": rng.random((2, 3)) * 0.8 + 0.1}, lambda s: (rng.random(s) > 0.5).astype(np.float32)),
    "Bernoulli-logits": ({"logits": rng.standard_normal(4)}, lambda s: (rng.random(s) > 0.5).astype(np.float32)),
    "Categorical": ({"probs": rng.random((2, 5)) + 0.05}, lambda s: rng.integers(0, 5, s[:-1] if len(s) else s)),
    "Categorical-logits": ({"logits": rng.standard_normal((3, 4))}, lambda s: rng.integers(0, 4, s[:-1])),
    "Gamma": ({"concentration": rng.random((2, 3)) * 3 + 0.2, "rate": rng.random((2, 3)) + 0.5},
              lambda s: rng.random(s) * 3 + 0.01),
    "Beta": ({"concentration1": rng.random(4) * 3 + 0.2, "concentration0": rng.random(4) * 3 + 0.2},
             lambda s: rng.random(s) * 0.98 + 0.01),
    "Dirichlet": ({"concentration": rng.random((2, 4)) * 3 + 0.2},
                  lambda s: (lambda x: x / x.sum(-1, keepdims=True))(rng.random(s) + 0.05)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_log_prob_entropy_moments_and_grads_match_torch(case):
    name = case.split("-")[0]
    params, values = CASES[case]
    ld, td, pairs = make(name, params)
    assert tuple(ld.batch_shape) == tuple(td.batch_shape) and tuple(ld.event_shape) == tuple(td.event_shape)
    shape = tuple(td.batch_shape) + ((td.probs.shape[-1],) if name == "Categorical" else tuple(td.event_shape))
    v = values(shape)
    lv, tv = as_pair(v) if name != "Categorical" else (loom.tensor(v), torch.tensor(v))
    lp, tp = ld.log_prob(lv), td.log_prob(tv)
    close(lp, tp, what="log_prob")
    close(ld.entropy(), td.entropy(), what="entropy")
    if name != "Categorical":
        close(ld.mean, td.mean, what="mean")
        close(ld.variance, td.variance, what="variance")
        close(ld.stddev, td.stddev, what="stddev")
    (lp.sum() + ld.entropy().sum()).backward()
    (tp.sum() + td.entropy().sum()).backward()
    for i, (a, b) in enumerate(pairs):
        close(a.grad, b.grad, what=f"grad of parameter {i}")


def test_normal_rsample_cdf_icdf_and_statistics():
    ld, td, [(lloc, tloc), (lscale, tscale)] = make("Normal", {"loc": np.array([1.0, -2.0]),
                                                                "scale": np.array([0.5, 3.0])})
    loom.manual_seed(0)
    s = ld.rsample((20000,))
    assert s.shape == (20000, 2) and ld.has_rsample
    np.testing.assert_allclose(s.mean(0).numpy(), [1, -2], atol=0.08)
    np.testing.assert_allclose(s.std(0).numpy(), [0.5, 3], rtol=0.03)
    s.mean().backward()
    np.testing.assert_allclose(lloc.grad.numpy(), [0.5, 0.5], rtol=1e-3)   # d mean / d loc
    x = np.array([0.3, 1.0], np.float32)
    close(ld.cdf(loom.tensor(x)), td.cdf(torch.tensor(x)))
    close(ld.icdf(loom.tensor([0.2, 0.9])), td.icdf(torch.tensor([0.2, 0.9])), atol=1e-4)
    assert not ld.sample((3,)).requires_grad


def test_categorical_sample_frequencies_and_shapes():
    loom.manual_seed(1)
    c = D.Categorical(probs=loom.tensor([[0.1, 0.6, 0.3], [1.0, 0.0, 0.0]]))
    s = c.sample((6000,))
    assert s.shape == (6000, 2) and s.dtype == loom.int64
    f = np.bincount(s[:, 0].numpy(), minlength=3) / 6000
    np.testing.assert_allclose(f, [0.1, 0.6, 0.3], atol=0.03)
    assert (s[:, 1] == 0).all().item()
    assert c.enumerate_support().shape == (3, 2)
    close(c.mode, torch.tensor([1, 0]))


def test_bernoulli_and_uniform_sample_statistics():
    loom.manual_seed(2)
    b = D.Bernoulli(probs=loom.tensor([0.1, 0.7]))
    np.testing.assert_allclose(b.sample((8000,)).mean(0).numpy(), [0.1, 0.7], atol=0.03)
    u = D.Uniform(loom.tensor([0.0, 5.0]), loom.tensor([1.0, 9.0]))
    s = u.sample((8000,)).numpy()
    assert (s[:, 0] >= 0).all() and (s[:, 0] < 1).all() and (s[:, 1] >= 5).all() and (s[:, 1] < 9).all()
    np.testing.assert_allclose(s.mean(0), [0.5, 7], atol=0.05)


@pytest.mark.parametrize("pair", [("Normal", "Normal"), ("Categorical", "Categorical"), ("Bernoulli", "Bernoulli"),
                                  ("Uniform", "Uniform"), ("Uniform", "Normal"), ("Gamma", "Gamma"),
                                  ("Beta", "Beta"), ("Dirichlet", "Dirichlet")])
def test_kl_divergence_matches_torch(pair):
    params = {"Normal": lambda: {"loc": rng.standard_normal(3), "scale": rng.random(3) + 0.5},
              "Categorical": lambda: {"probs": rng.random((3, 4)) + 0.05},
              "Bernoulli": lambda: {"probs": rng.random(3) * 0.8 + 0.1},
              "Uniform": lambda: {"low": -rng.random(3), "high": rng.random(3) + 0.01},
              "Gamma": lambda: {"concentration": rng.random(3) * 3 + 0.2, "rate": rng.random(3) + 0.5},
              "Beta": lambda: {"concentration1": rng.random(3) + 0.5, "concentration0": rng.random(3) + 0.5},
              "Dirichlet": lambda: {"concentration": rng.random((2, 3)) * 2 + 0.3}}
    lp, tp, pp = make(pair[0], params[pair[0]]())
    lq, tq, _ = make(pair[1], params[pair[1]]())
    lk, tk = D.kl_divergence(lp, lq), TD.kl_divergence(tp, tq)
    close(lk, tk, what="kl")
    finite = np.isfinite(tk.detach().numpy())
    if finite.all():
        lk.sum().backward()
        tk.sum().backward()
        for a, b in pp:
            close(a.grad, b.grad, what="kl grad")


def test_validation_and_errors():
    with pytest.raises(ValueError, match="scale"):
        D.Normal(loom.zeros(2), loom.tensor([1.0, -1.0]))
    with pytest.raises(ValueError, match="probs"):
        D.Bernoulli(probs=loom.tensor([1.5]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Categorical()
    with pytest.raises(ValueError, match="support"):
        D.Bernoulli(probs=loom.tensor([0.5])).log_prob(loom.tensor([0.3]))
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(probs=loom.tensor(0.5)))
    assert D.Normal(0.0, 1.0, validate_args=False).scale.item() == 1.0


def test_policy_gradient_step_matches_torch():
    """REINFORCE with Categorical: the loss gradient on a linear policy matches PyTorch's."""
    w = rng.standard_normal((4, 3)).astype(np.float32)
    obs = rng.standard_normal((6, 4)).astype(np.float32)
    actions = rng.integers(0, 3, 6)
    returns = rng.standard_normal(6).astype(np.float32)
    grads = []
    for lib in (loom, torch):
        W = lib.tensor(w, requires_grad=True)
        dist = (D if lib is loom else TD).Categorical(logits=lib.tensor(obs) @ W)
        loss = -(dist.log_prob(lib.tensor(actions)) * lib.tensor(returns)).mean() - 0.01 * dist.entropy().mean()
        loss.backward()
        grads.append(W.grad.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-5)


def test_gamma_family_sample_statistics():
    loom.manual_seed(5)
    g = D.Gamma(loom.tensor([0.5, 3.0]), loom.tensor([2.0, 1.0]))
    s = g.sample((20000,)).numpy()
    np.testing.assert_allclose(s.mean(0), [0.25, 3.0], rtol=0.05)
    np.testing.assert_allclose(s.var(0), [0.125, 3.0], rtol=0.1)
    b = D.Beta(loom.tensor([2.0]), loom.tensor([5.0])).sample((20000,)).numpy()
    assert (b > 0).all() and (b < 1).all() and abs(b.mean() - 2 / 7) < 0.01
    d = D.Dirichlet(loom.tensor([1.0, 2.0, 7.0])).sample((5000,))
    assert d.shape == (5000, 3)
    np.testing.assert_allclose(d.sum(-1).numpy(), 1, rtol=1e-5)
    np.testing.assert_allclose(d.mean(0).numpy(), [0.1, 0.2, 0.7], atol=0.01)
    with pytest.raises(NotImplementedError, match="rsample"):
        g.rsample()
