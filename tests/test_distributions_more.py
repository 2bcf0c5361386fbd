"""loom.distributions' MultivariateNormal, Exponential, Laplace, LogNormal, Poisson, Geometric, Binomial,
OneHotCategorical, Cauchy, StudentT and Independent against torch.distributions: log_prob, entropy, moments,
cdf/icdf, expand, kl_divergence and their gradients from the same parameters; rsample's pathwise gradients;
samples checked statistically with fixed seeds; argument errors with PyTorch's messages."""
import math

import numpy as np
import pytest
torch = pytest.importorskip("torch", reason="PyTorch is not installed: these tests compare with it")

import loom
from loom import distributions as D
from twin import as_pair, close

rng = np.random.default_rng(1)
TD = torch.distributions


def make(name, params, grad=True):
    """(loom distribution, torch distribution, {name: (loom param, torch param)}) from NumPy parameters; names
    ending in '!' are passed without requires_grad (total_count), under the name without the '!'."""
    pairs = {k.rstrip("!"): as_pair(v, grad and not k.endswith("!")) for k, v in params.items()}
    ld = getattr(D, name)(**{k: p[0] for k, p in pairs.items()})
    td = getattr(TD, name)(**{k: p[1] for k, p in pairs.items()})
    return ld, td, pairs


def spd(n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


CASES = {
    "Exponential": ({"rate": rng.random((2, 3)) + 0.3}, lambda s: rng.random(s) * 3),
    "Laplace": ({"loc": rng.standard_normal((2, 3)), "scale": rng.random((2, 3)) + 0.3},
                lambda s: rng.standard_normal(s) * 2),
    "LogNormal": ({"loc": rng.standard_normal(4) * 0.5, "scale": rng.random(4) + 0.2},
                  lambda s: rng.random(s) * 3 + 0.05),
    "Cauchy": ({"loc": rng.standard_normal(4), "scale": rng.random(4) + 0.2}, lambda s: rng.standard_normal(s) * 3),
    "StudentT": ({"df": np.array([0.7, 1.5, 3.0, 10.0]), "loc": rng.standard_normal(4), "scale": rng.random(4) + 0.2},
                 lambda s: rng.standard_normal(s) * 2),
    "Poisson": ({"rate": rng.random((2, 3)) * 5 + 0.1}, lambda s: rng.integers(0, 8, s).astype(np.float32)),
    "Geometric": ({"probs": rng.random(4) * 0.8 + 0.1}, lambda s: rng.integers(0, 6, s).astype(np.float32)),
    "Geometric-logits": ({"logits": rng.standard_normal(4)}, lambda s: rng.integers(0, 6, s).astype(np.float32)),
    "Binomial": ({"total_count!": np.full(4, 7.0), "probs": rng.random(4) * 0.8 + 0.1},
                 lambda s: rng.integers(0, 8, s).astype(np.float32)),
    "Binomial-logits": ({"total_count!": np.array([3.0, 10.0, 0.0]), "logits": rng.standard_normal(3)},
                        lambda s: np.array([2.0, 9.0, 0.0], np.float32)),
    "OneHotCategorical": ({"probs": rng.random((2, 4)) + 0.05},
                          lambda s: np.eye(4, dtype=np.float32)[rng.integers(0, 4, s[:-1])]),
    "OneHotCategorical-logits": ({"logits": rng.standard_normal((3, 5))},
                                 lambda s: np.eye(5, dtype=np.float32)[rng.integers(0, 5, s[:-1])]),
}
NO_ENTROPY = {"Poisson", "Binomial-logits"}    # torch: Poisson has none; Binomial's needs one total_count
CDF = {"Exponential", "Laplace", "LogNormal", "Cauchy"}


@pytest.mark.parametrize("case", list(CASES))
def test_log_prob_entropy_moments_and_grads_match_torch(case):
    name = case.split("-")[0]
    params, values = CASES[case]
    ld, td, pairs = make(name, params)
    assert tuple(ld.batch_shape) == tuple(td.batch_shape) and tuple(ld.event_shape) == tuple(td.event_shape)
    v = values(tuple(td.batch_shape) + tuple(td.event_shape))
    lv, tv = as_pair(v)
    lp, tp = ld.log_prob(lv), td.log_prob(tv)
    close(lp, tp, what="log_prob")
    loss_l, loss_t = lp.sum(), tp.sum()
    if case not in NO_ENTROPY:
        close(ld.entropy(), td.entropy(), what="entropy")
        loss_l, loss_t = loss_l + ld.entropy().sum(), loss_t + td.entropy().sum()
    for m in ("mean", "variance", "stddev", "mode"):
        close(getattr(ld, m), getattr(td, m), what=m)
    if name in CDF:
        close(ld.cdf(lv), td.cdf(tv), what="cdf")
        u = rng.random(v.shape) * 0.9 + 0.05
        close(ld.icdf(loom.tensor(u.astype(np.float32))), td.icdf(torch.tensor(u.astype(np.float32))), what="icdf",
              rtol=1e-3, atol=1e-4)
    loss_l.backward()
    loss_t.backward()
    for k, (a, b) in pairs.items():
        if b.requires_grad:
            close(a.grad, b.grad, what=f"grad of {k}", rtol=1e-3)
    assert ld.has_rsample == td.has_rsample


MVN_CASES = {
    "covariance": lambda: {"loc": rng.standard_normal((2, 3)), "covariance_matrix": spd(3)},
    "scale_tril": lambda: {"loc": rng.standard_normal(3),
                           "scale_tril": np.linalg.cholesky(spd(3, (4, 1)))},
    "precision": lambda: {"loc": rng.standard_normal((1, 3)), "precision_matrix": spd(3, (2,))},
}


@pytest.mark.parametrize("param", list(MVN_CASES))
def test_multivariate_normal_matches_torch(param):
    ld, td, pairs = make("MultivariateNormal", MVN_CASES[param]())
    assert ld.batch_shape == tuple(td.batch_shape) and ld.event_shape == (3,)
    v = rng.standard_normal((5,) + tuple(td.batch_shape) + (3,))
    lv, tv = as_pair(v)
    lp, tp = ld.log_prob(lv), td.log_prob(tv)
    close(lp, tp, what="log_prob", atol=1e-4)
    close(ld.entropy(), td.entropy(), what="entropy")
    for m in ("mean", "mode", "variance", "stddev", "covariance_matrix", "precision_matrix", "scale_tril"):
        close(getattr(ld, m), getattr(td, m), what=m, atol=1e-4, rtol=1e-3)
    (lp.sum() + ld.entropy().sum()).backward()
    (tp.sum() + td.entropy().sum()).backward()
    for k, (a, b) in pairs.items():
        close(a.grad, b.grad, what=f"grad of {k}", atol=1e-4, rtol=1e-3)
    assert repr(ld) == repr(td).replace("torch.", "loom.")


def test_multivariate_normal_rsample_statistics_and_pathwise_gradient():
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    loc = np.array([1.0, -1.0, 0.5])
    ld, _, pairs = make("MultivariateNormal", {"loc": loc, "covariance_matrix": cov})
    loom.manual_seed(3)
    x = ld.rsample((20000,))
    assert x.shape == (20000, 3) and x.requires_grad
    xs = x.detach().numpy().astype(np.float64)
    np.testing.assert_allclose(xs.mean(0), loc, atol=0.04)
    np.testing.assert_allclose(np.cov(xs.T), cov, atol=0.06)
    # d sum(w * x) / d loc = sum over draws of w; through the Cholesky factor as torch's with the same noise
    w = rng.standard_normal(3).astype(np.float32)
    (x * loom.tensor(w)).sum().backward()
    np.testing.assert_allclose(pairs["loc"][0].grad.numpy(), 20000 * w, rtol=1e-4)
    L = np.linalg.cholesky(cov)
    eps = np.linalg.solve(L, (xs - loc).T).T
    tcov = torch.tensor(cov.astype(np.float32), requires_grad=True)
    tx = torch.tensor(loc.astype(np.float32)) + (torch.linalg.cholesky(tcov) @ torch.tensor(eps.T.astype(np.float32))).T
    (tx * torch.tensor(w)).sum().backward()
    close(pairs["covariance_matrix"][0].grad, tcov.grad, atol=0.5, rtol=2e-3, what="grad of covariance")
    assert not ld.sample((2,)).requires_grad and ld.sample().shape == (3,)


def _stats(d, n=20000):
    s = d.sample((n,))
    assert s.shape == (n,) + tuple(d.batch_shape) + tuple(d.event_shape)
    return s.numpy().astype(np.float64)


def test_sample_moments():
    loom.manual_seed(7)
    s = _stats(D.Exponential(loom.tensor([0.5, 4.0])))
    assert (s >= 0).all()
    np.testing.assert_allclose(s.mean(0), [2.0, 0.25], rtol=0.04)
    np.testing.assert_allclose(s.var(0), [4.0, 1 / 16], rtol=0.1)
    s = _stats(D.Laplace(loom.tensor([1.0, -2.0]), loom.tensor([0.5, 2.0])))
    np.testing.assert_allclose(s.mean(0), [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose(s.var(0), [0.5, 8.0], rtol=0.08)
    s = _stats(D.LogNormal(loom.tensor([0.0, 1.0]), loom.tensor([0.25, 0.5])))
    np.testing.assert_allclose(s.mean(0), np.exp([0.03125, 1.125]), rtol=0.02)
    np.testing.assert_allclose(np.median(s, 0), np.exp([0.0, 1.0]), rtol=0.02)
    s = _stats(D.Poisson(loom.tensor([0.5, 12.0])))
    assert (s == np.floor(s)).all() and (s >= 0).all()
    np.testing.assert_allclose(s.mean(0), [0.5, 12.0], rtol=0.03)
    np.testing.assert_allclose(s.var(0), [0.5, 12.0], rtol=0.08)
    s = _stats(D.Geometric(probs=loom.tensor([0.2, 0.7])))
    assert (s == np.floor(s)).all() and (s >= 0).all()
    np.testing.assert_allclose(s.mean(0), [4.0, 3 / 7], rtol=0.04)
    np.testing.assert_allclose(s.var(0), [20.0, 0.3 / 0.49], rtol=0.1)
    s = _stats(D.Binomial(loom.tensor([5.0, 300.0, 0.0]), probs=loom.tensor([0.3, 0.9, 0.5])))
    assert (s == np.floor(s)).all() and (s >= 0).all() and (s[:, 0] <= 5).all() and (s[:, 2] == 0).all()
    np.testing.assert_allclose(s.mean(0)[:2], [1.5, 270.0], rtol=0.02)
    np.testing.assert_allclose(s.var(0)[:2], [1.05, 27.0], rtol=0.08)
    s = _stats(D.StudentT(loom.tensor([5.0, 30.0]), loom.tensor([1.0, 0.0]), loom.tensor([2.0, 1.0])))
    np.testing.assert_allclose(s.mean(0), [1.0, 0.0], atol=0.06)
    np.testing.assert_allclose(s.var(0), [4 * 5 / 3, 30 / 28], rtol=0.1)
    s = _stats(D.Cauchy(loom.tensor([1.0]), loom.tensor([2.0])))
    np.testing.assert_allclose(np.percentile(s[:, 0], [25, 50, 75]), [-1.0, 1.0, 3.0], atol=0.1)
    s = _stats(D.OneHotCategorical(probs=loom.tensor([0.1, 0.6, 0.3])))
    assert set(np.unique(s)) <= {0.0, 1.0} and (s.sum(-1) == 1).all()
    np.testing.assert_allclose(s.mean(0), [0.1, 0.6, 0.3], atol=0.015)


def test_rsample_pathwise_gradients():
    loom.manual_seed(11)
    rate = loom.tensor([0.5, 2.0], requires_grad=True)
    x = D.Exponential(rate).rsample((1000,))
    x.sum().backward()
    np.testing.assert_allclose(rate.grad.numpy(), -(x.detach() / rate.detach()).sum(0).numpy(), rtol=1e-4)
    for name in ("Laplace", "Cauchy", "Normal"):
        loc = loom.tensor([0.3, -1.0], requires_grad=True)
        scale = loom.tensor([0.5, 2.0], requires_grad=True)
        x = getattr(D, name)(loc, scale).rsample((500,))
        (x ** 2).sum().backward()
        z = ((x.detach() - loc.detach()) / scale.detach())
        np.testing.assert_allclose(loc.grad.numpy(), (2 * x.detach()).sum(0).numpy(), rtol=1e-4, err_msg=name)
        np.testing.assert_allclose(scale.grad.numpy(), (2 * x.detach() * z).sum(0).numpy(), rtol=1e-3,
                                   err_msg=name)
    loc = loom.tensor([0.2], requires_grad=True)
    x = D.LogNormal(loc, loom.tensor([0.5])).rsample((100,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), x.detach().sum(0).numpy(), rtol=1e-4)
    loc, scale = loom.tensor([1.0], requires_grad=True), loom.tensor([3.0], requires_grad=True)
    x = D.StudentT(loom.tensor([4.0]), loc, scale).rsample((100,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [100.0])
    np.testing.assert_allclose(scale.grad.numpy(), ((x.detach() - 1) / 3).sum(0).numpy(), rtol=1e-4)
    with pytest.raises(NotImplementedError, match="df"):
        D.StudentT(loom.tensor([4.0], requires_grad=True)).rsample()
    for name in ("Poisson", "Geometric", "Binomial", "OneHotCategorical"):
        assert not getattr(D, name).has_rsample


def test_one_hot_straight_through_gradient_matches_torch():
    logits = rng.standard_normal(4)
    w = rng.standard_normal(4).astype(np.float32)
    ll, tl = as_pair(logits, True)
    loom.manual_seed(0)
    s = D.OneHotCategoricalStraightThrough(logits=ll).rsample((3,))
    assert s.shape == (3, 4) and s.requires_grad
    (s * loom.tensor(w)).sum().backward()
    ts = TD.OneHotCategoricalStraightThrough(logits=tl).rsample((3,))
    (ts * torch.tensor(w)).sum().backward()
    close(ll.grad, tl.grad, what="straight-through grad")
    np.testing.assert_allclose(s.detach().numpy().sum(-1), 1)


def test_enumerate_support_matches_torch():
    for name, params in [("Binomial", {"total_count!": np.full(2, 3.0), "probs": np.array([0.2, 0.7])}),
                         ("OneHotCategorical", {"probs": np.array([[0.2, 0.8, 0.0], [0.3, 0.3, 0.4]])})]:
        ld, td, _ = make(name, params)
        for expand in (True, False):
            close(ld.enumerate_support(expand), td.enumerate_support(expand), what=name)


@pytest.mark.parametrize("pair", [
    ("Exponential", "Exponential"), ("Laplace", "Laplace"), ("LogNormal", "LogNormal"), ("Poisson", "Poisson"),
    ("Geometric", "Geometric"), ("Binomial", "Binomial"), ("OneHotCategorical", "OneHotCategorical"),
    ("Cauchy", "Cauchy"), ("MultivariateNormal", "MultivariateNormal"), ("Exponential", "Gamma"),
    ("Gamma", "Exponential"), ("Exponential", "Normal"), ("Laplace", "Normal"), ("Normal", "Laplace"),
    ("Bernoulli", "Poisson"), ("Normal", "Exponential"), ("Poisson", "Binomial"), ("Laplace", "Uniform")])
def test_kl_divergence_matches_torch(pair):
    params = {"Exponential": lambda: {"rate": rng.random(3) + 0.3},
              "Laplace": lambda: {"loc": rng.standard_normal(3), "scale": rng.random(3) + 0.3},
              "LogNormal": lambda: {"loc": rng.standard_normal(3), "scale": rng.random(3) + 0.3},
              "Normal": lambda: {"loc": rng.standard_normal(3), "scale": rng.random(3) + 0.3},
              "Cauchy": lambda: {"loc": rng.standard_normal(3), "scale": rng.random(3) + 0.3},
              "Poisson": lambda: {"rate": rng.random(3) * 4 + 0.2},
              "Geometric": lambda: {"probs": rng.random(3) * 0.8 + 0.1},
              "Binomial": lambda: {"total_count!": np.array([4.0, 6.0, 6.0]), "probs": rng.random(3) * 0.8 + 0.1},
              "Bernoulli": lambda: {"probs": rng.random(3) * 0.8 + 0.1},
              "Gamma": lambda: {"concentration": rng.random(3) * 2 + 0.3, "rate": rng.random(3) + 0.3},
              "Uniform": lambda: {"low": -rng.random(3) - 0.1, "high": rng.random(3) + 0.1},
              "OneHotCategorical": lambda: {"logits": rng.standard_normal((3, 4))},
              "MultivariateNormal": lambda: {"loc": rng.standard_normal((2, 3)),
                                             "scale_tril": np.linalg.cholesky(spd(3))}}
    lp, tp, pp = make(pair[0], params[pair[0]]())
    qparams = params[pair[1]]()
    if pair == ("Binomial", "Binomial"):
        qparams["total_count!"] = np.array([4.0, 6.0, 3.0])     # one q.total_count < p's: KL inf there
    lq, tq, qq = make(pair[1], qparams)
    lk, tk = D.kl_divergence(lp, lq), TD.kl_divergence(tp, tq)
    close(lk, tk, what="kl", atol=1e-4)
    finite = np.isfinite(tk.detach().numpy())
    if finite.all():
        lk.sum().backward()
        tk.sum().backward()
        for k, (a, b) in list(pp.items()) + list(qq.items()):
            if b.requires_grad:
                close(a.grad, b.grad, what=f"kl grad of {k}", atol=1e-4, rtol=1e-3)
    else:
        assert not finite.all()


def test_independent_matches_torch():
    ln, tn, pairs = make("Normal", {"loc": rng.standard_normal((4, 2, 3)), "scale": rng.random((4, 2, 3)) + 0.5})
    li, ti = D.Independent(ln, 2), TD.Independent(tn, 2)
    assert li.batch_shape == (4,) and li.event_shape == (2, 3) and li.has_rsample
    assert repr(li) == repr(ti).replace("torch.", "loom.")
    v = rng.standard_normal((5, 4, 2, 3))
    lv, tv = as_pair(v)
    close(li.log_prob(lv), ti.log_prob(tv), what="log_prob", atol=1e-4)
    close(li.entropy(), ti.entropy(), what="entropy")
    close(li.mean, ti.mean)
    close(li.variance, ti.variance)
    assert li.sample((6,)).shape == (6, 4, 2, 3)
    lq, tq, _ = make("Normal", {"loc": rng.standard_normal((4, 2, 3)), "scale": rng.random((4, 2, 3)) + 0.5})
    lk, tk = D.kl_divergence(li, D.Independent(lq, 2)), TD.kl_divergence(ti, TD.Independent(tq, 2))
    close(lk, tk, what="kl", atol=1e-4)
    lk.sum().backward()
    tk.sum().backward()
    for k, (a, b) in pairs.items():
        close(a.grad, b.grad, what=f"kl grad of {k}")
    with pytest.raises(NotImplementedError):
        D.kl_divergence(li, D.Independent(lq, 1))
    # Independent over a multivariate base: the base's event dims stay event dims
    lm = D.MultivariateNormal(loom.zeros(2, 3), scale_tril=loom.eye(3))
    assert D.Independent(lm, 1).event_shape == (2, 3) and D.Independent(lm, 1).batch_shape == ()
    assert not D.Independent(D.Bernoulli(probs=loom.full((3,), 0.5)), 1).has_enumerate_support


EXPAND = {   # parameters with batch shape (1,), expanded to (2, 5, 1) ... (2, 5) for the scalar ones
    "Exponential": {"rate": np.array([0.7])},
    "Laplace": {"loc": np.array([0.2]), "scale": np.array([1.3])},
    "LogNormal": {"loc": np.array([0.2]), "scale": np.array([0.6])},
    "Cauchy": {"loc": np.array([0.2]), "scale": np.array([1.3])},
    "StudentT": {"df": np.array([3.0]), "loc": np.array([0.2]), "scale": np.array([1.3])},
    "Poisson": {"rate": np.array([2.5])},
    "Geometric": {"probs": np.array([0.3])},
    "Binomial": {"total_count!": np.array([6.0]), "logits": np.array([0.4])},
    "OneHotCategorical": {"probs": np.array([[0.2, 0.5, 0.3]])},
    "MultivariateNormal": {"loc": np.array([[0.1, -0.2, 0.3]]), "covariance_matrix": spd(3)},
    "Normal": {"loc": np.array([0.2]), "scale": np.array([1.3])},
    "Categorical": {"logits": np.array([[0.1, 0.5, -1.0, 0.0]])},
    "Bernoulli": {"probs": np.array([0.3])},
    "Gamma": {"concentration": np.array([1.5]), "rate": np.array([0.5])},
    "Dirichlet": {"concentration": np.array([[0.5, 1.5, 2.0]])},
}


@pytest.mark.parametrize("name", list(EXPAND) + ["Independent"])
def test_expand_matches_torch(name):
    if name == "Independent":
        ln, tn, _ = make("Normal", {"loc": rng.standard_normal((1, 3)), "scale": rng.random((1, 3)) + 0.5}, False)
        ld, td = D.Independent(ln, 1), TD.Independent(tn, 1)
    else:
        ld, td, _ = make(name, EXPAND[name], False)
    assert ld.batch_shape == (1,)
    le, te = ld.expand((2, 5, 1)), td.expand((2, 5, 1))
    assert le.batch_shape == (2, 5, 1) == tuple(te.batch_shape) and le.event_shape == tuple(te.event_shape)
    assert type(le) is type(ld) and ld.batch_shape == (1,)
    s = te.sample()
    lv = loom.tensor(s.numpy())
    close(le.log_prob(lv), te.log_prob(s), what="expanded log_prob", atol=1e-4)
    assert le.sample((3,)).shape == (3, 2, 5, 1) + tuple(te.event_shape)
    if name != "Poisson":
        close(le.entropy(), te.entropy(), what="expanded entropy")
    close(le.mean, te.mean, what="expanded mean")
    with pytest.raises(Exception):
        ld.expand(())     # fewer dims than the parameters: torch raises too
    with pytest.raises(Exception):
        td.expand(())


def _message(fn):
    try:
        fn()
    except Exception as e:     # noqa: BLE001  (compare whatever torch raises)
        return type(e).__name__, str(e).replace("torch.", "loom.").split("\n")[0]
    return None


ERRORS = {
    "mvn 0-d loc": lambda lib, T: T.MultivariateNormal(lib.tensor(0.0), lib.eye(1)),
    "mvn no matrix": lambda lib, T: T.MultivariateNormal(lib.zeros(2)),
    "mvn two matrices": lambda lib, T: T.MultivariateNormal(lib.zeros(2), lib.eye(2), scale_tril=lib.eye(2)),
    "mvn 1-d scale_tril": lambda lib, T: T.MultivariateNormal(lib.zeros(2), scale_tril=lib.ones(2)),
    "mvn 1-d covariance": lambda lib, T: T.MultivariateNormal(lib.zeros(2), covariance_matrix=lib.ones(2)),
    "mvn 1-d precision": lambda lib, T: T.MultivariateNormal(lib.zeros(2), precision_matrix=lib.ones(2)),
    "mvn indefinite": lambda lib, T: T.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "mvn asymmetric": lambda lib, T: T.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 0.5], [0.0, 1.0]])),
    "mvn bad scale_tril": lambda lib, T: T.MultivariateNormal(lib.zeros(2),
                                                             scale_tril=lib.tensor([[1.0, 2.0], [0.0, 1.0]])),
    "mvn kl event shapes": lambda lib, T: T.kl_divergence(T.MultivariateNormal(lib.zeros(2), lib.eye(2)),
                                                          T.MultivariateNormal(lib.zeros(3), lib.eye(3))),
    "independent ndims": lambda lib, T: T.Independent(T.Normal(lib.zeros(3), 1.0), 2),
    "geometric zero probs": lambda lib, T: T.Geometric(lib.tensor([0.0, 0.5])),
    "exponential rate": lambda lib, T: T.Exponential(lib.tensor([-1.0])),
    "laplace scale": lambda lib, T: T.Laplace(0.0, lib.tensor([0.0])),
    "poisson support": lambda lib, T: T.Poisson(lib.tensor([1.0])).log_prob(lib.tensor([0.5])),
    "poisson rate": lambda lib, T: T.Poisson(lib.tensor([-1.0])),
    "binomial count": lambda lib, T: T.Binomial(lib.tensor([2.5]), lib.tensor([0.5])),
    "binomial both": lambda lib, T: T.Binomial(2, lib.tensor([0.5]), lib.tensor([0.0])),
    "binomial entropy": lambda lib, T: T.Binomial(lib.tensor([2.0, 3.0]), lib.tensor([0.5, 0.5])).entropy(),
    "binomial kl": lambda lib, T: T.kl_divergence(T.Binomial(2, lib.tensor([0.5])), T.Binomial(3, lib.tensor([0.5]))),
    "onehot support": lambda lib, T: T.OneHotCategorical(lib.tensor([0.5, 0.5])).log_prob(lib.tensor([1.0, 1.0])),
    "cauchy scale": lambda lib, T: T.Cauchy(lib.tensor([0.0]), lib.tensor([-1.0])),
    "lognormal support": lambda lib, T: T.LogNormal(0.0, 1.0).log_prob(lib.tensor([-1.0])),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_argument_errors_match_torch(case):
    ours, theirs = _message(lambda: ERRORS[case](loom, D)), _message(lambda: ERRORS[case](torch, TD))
    assert theirs is not None and ours is not None, (ours, theirs)
    assert ours[0] == theirs[0], (ours, theirs)
    if case not in ("onehot support", "lognormal support"):   # torch names its own internals in these two
        assert ours[1] == theirs[1], (ours, theirs)


def test_validate_args_false_and_defaults():
    d = D.Exponential(loom.tensor([-1.0]), validate_args=False)
    assert d.rate.item() == -1.0
    assert D.Poisson(loom.tensor([1.0]), validate_args=False).log_prob(loom.tensor([0.5])).shape == (1,)
    s = D.StudentT(3.0)
    assert s.loc.item() == 0.0 and s.scale.item() == 1.0 and s.batch_shape == ()
    b = D.Binomial(probs=loom.tensor([0.25]))
    assert b.total_count.item() == 1.0 and b.total_count.dtype == loom.float32
    assert math.isnan(D.StudentT(loom.tensor([1.0])).mean.item())
    assert D.StudentT(loom.tensor([1.5])).variance.item() == float("inf")
    assert math.isnan(D.Cauchy(0.0, 1.0).mean.item()) and D.Cauchy(0.0, 1.0).variance.item() == float("inf")
