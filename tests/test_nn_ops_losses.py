"""Activations, losses, dropout and var/std beyond the generated tests: values and
gradients against PyTorch over reductions, weights, ignore_index, label smoothing
and K-d inputs; double backward through the fused backward ops; error cases;
dropout's mask statistics and seeding; var/std accuracy and std's gradient at 0."""
import numpy as np
import pytest

import loom

REDUCTIONS = ["none", "mean", "sum"]


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _pair(torch, arr, grad=True):
    """The same float64 data as a loom and a torch leaf."""
    arr = np.asarray(arr)
    lt = loom.tensor(arr)
    tt = torch.tensor(arr)
    if grad and arr.dtype.kind == "f":
        lt.requires_grad_()
        tt.requires_grad_()
    return lt, tt


def _compare(torch, lfn, tfn, arrays, n_grad=None, rtol=1e-9, atol=1e-11):
    """lfn(*loom) against tfn(*torch): the value, then the gradients of the first n_grad float inputs
    (all by default; PyTorch takes none for loss weights) for a random upstream."""
    n_grad = len(arrays) if n_grad is None else n_grad
    pairs = [_pair(torch, a, grad=i < n_grad) for i, a in enumerate(arrays)]
    lo = lfn(*[p[0] for p in pairs])
    to = tfn(*[p[1] for p in pairs])
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=rtol, atol=atol)
    if not to.requires_grad:
        return
    seed = np.random.default_rng(11).standard_normal(tuple(to.shape))
    lo.backward(loom.tensor(seed))
    to.backward(torch.tensor(seed))
    for (l, t) in pairs:
        if t.requires_grad:
            assert l.grad is not None
            np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=atol)


def _rng(seed=0):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------- activations
ACTIVATIONS = [
    ("gelu", {}, {}), ("gelu", {"approximate": "tanh"}, {"approximate": "tanh"}),
    ("silu", {}, {}), ("leaky_relu", {}, {}), ("leaky_relu", {"negative_slope": 0.3}, {"negative_slope": 0.3}),
    ("elu", {}, {}), ("elu", {"alpha": 0.7}, {"alpha": 0.7}),
    ("softplus", {}, {}), ("softplus", {"beta": 3, "threshold": 2}, {"beta": 3, "threshold": 2}),
]


@pytest.mark.parametrize("name,lkw,tkw", ACTIVATIONS, ids=lambda v: v if isinstance(v, str) else str(v))
def test_activation_values_and_gradients(torch, name, lkw, tkw):
    x = _rng(1).standard_normal((5, 7)) * 4
    x[0, :3] = [40.0, -40.0, 0.3]   # softplus's threshold region and far tails
    _compare(torch, lambda a: getattr(loom, name)(a, **lkw),
             lambda a: getattr(torch.nn.functional, name)(a, **tkw), [x])


@pytest.mark.parametrize("name,lkw,tkw", ACTIVATIONS, ids=lambda v: v if isinstance(v, str) else str(v))
def test_activation_float32_and_double_backward(torch, name, lkw, tkw):
    x = (_rng(2).standard_normal((4, 6)) * 3).astype(np.float32)
    got = getattr(loom, name)(loom.tensor(x), **lkw).numpy()
    want = getattr(torch.nn.functional, name)(torch.tensor(x), **tkw).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    x64 = loom.tensor(_rng(3).standard_normal((3, 4)) * 2, requires_grad=True)
    assert loom.autograd.gradgradcheck(lambda a: getattr(loom, name)(a, **lkw), [x64])


@pytest.mark.parametrize("name,kw", [("leaky_relu", {"negative_slope": 0.1}), ("elu", {"alpha": 2.0}), ("silu", {}),
                                     ("relu", {})])
def test_inplace_activations(name, kw):
    x = loom.tensor(_rng(4).standard_normal((3, 5)))
    want = getattr(loom, name)(x, **kw)
    y = x.clone()
    assert getattr(y, name + "_")(**kw) is y
    np.testing.assert_array_equal(y.numpy(), want.numpy())
    a = loom.tensor(_rng(5).standard_normal((3, 5)), requires_grad=True)
    b = a * 1.0
    getattr(b, name + "_")(**kw).sum().backward()   # autograd sees through the in-place op
    a2 = a.detach().requires_grad_()
    getattr(loom, name)(a2, **kw).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), a2.grad.numpy())


def test_activation_errors():
    with pytest.raises(ValueError, match=r"^gelu\(\): approximate argument must be either none or tanh"):
        loom.gelu(loom.ones(2), approximate="exact")
    for fn in (loom.gelu, loom.silu, loom.leaky_relu, loom.elu, loom.softplus):
        with pytest.raises(TypeError, match=rf"^{fn.__name__}\(\): not implemented for dtype int64"):
            fn(loom.tensor([1, 2]))


# ---------------------------------------------------------------- regression losses
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_regression_losses(torch, name, reduction):
    r = _rng(6)
    _compare(torch, lambda a, b: getattr(loom, name)(a, b, reduction=reduction),
             lambda a, b: getattr(torch.nn.functional, name)(a, b, reduction=reduction),
             [r.standard_normal((4, 3)), r.standard_normal((4, 3))])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(torch, reduction, weighted):
    r = _rng(7)
    x = r.uniform(0.02, 0.98, (5, 3))
    t = r.uniform(0, 1, (5, 3))
    arrays = [x, t] + ([r.uniform(0.5, 2, (3,))] if weighted else [])
    _compare(torch, lambda a, b, *w: loom.binary_cross_entropy(a, b, *w, reduction=reduction),
             lambda a, b, *w: torch.nn.functional.binary_cross_entropy(a, b, *w, reduction=reduction), arrays, 2)


def test_binary_cross_entropy_clamps_log_at_minus_100(torch):
    x = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
    t = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    got = loom.binary_cross_entropy(loom.tensor(x), loom.tensor(t), reduction="none").numpy()
    want = torch.nn.functional.binary_cross_entropy(torch.tensor(x), torch.tensor(t), reduction="none").numpy()
    np.testing.assert_allclose(got, want)
    assert got[0] == 100 and got[1] == 100


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("extra", ["none", "weight", "pos_weight", "both"])
def test_binary_cross_entropy_with_logits(torch, reduction, extra):
    r = _rng(8)
    x = r.standard_normal((6, 4)) * 5
    x[0] = [80.0, -80.0, 700.0, -700.0]   # exp would overflow in a naive formula
    t = r.uniform(0, 1, (6, 4))
    kw_arrays = {}
    if extra in ("weight", "both"):
        kw_arrays["weight"] = r.uniform(0.5, 2, (4,))
    if extra in ("pos_weight", "both"):
        kw_arrays["pos_weight"] = r.uniform(0.5, 3, (4,))
    names = list(kw_arrays)

    def call(mod, fn):
        return lambda a, b, *ws: fn(a, b, reduction=reduction, **dict(zip(names, ws)))
    _compare(torch, call(loom, loom.binary_cross_entropy_with_logits),
             call(torch, torch.nn.functional.binary_cross_entropy_with_logits), [x, t] + list(kw_arrays.values()), 2)


def test_binary_cross_entropy_errors():
    with pytest.raises(ValueError, match=r"^binary_cross_entropy\(\): all elements of input should be between 0 and 1"):
        loom.binary_cross_entropy(loom.tensor([0.5, 1.5]), loom.tensor([1.0, 0.0]))
    with pytest.raises(ValueError, match=r"^binary_cross_entropy\(\): all elements of input"):
        loom.binary_cross_entropy(loom.tensor([float("nan")]), loom.tensor([1.0]))
    with pytest.raises(ValueError, match=r"^binary_cross_entropy\(\): Using a target size"):
        loom.binary_cross_entropy(loom.tensor([0.5, 0.5]), loom.tensor([1.0]))
    with pytest.raises(ValueError, match=r"^binary_cross_entropy_with_logits\(\): Target size"):
        loom.binary_cross_entropy_with_logits(loom.zeros(2, 3), loom.zeros(3))


# ---------------------------------------------------------------- nll_loss and cross_entropy
def _targets(r, shape, C, ignore=None):
    t = r.integers(0, C, size=shape)
    if ignore is not None:
        t.reshape(-1)[::3] = ignore
    return t


NLL_SHAPES = [((7,), ()), ((6, 5), (6,)), ((3, 4, 5), (3, 5)), ((2, 3, 4, 2), (2, 4, 2))]


@pytest.mark.parametrize("shapes", NLL_SHAPES, ids=lambda s: f"{len(s[0])}d")
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 1])
def test_nll_loss(torch, shapes, reduction, weighted, ignore_index):
    r = _rng(9)
    xshape, tshape = shapes
    C = xshape[1] if len(xshape) > 1 else xshape[0]
    x = r.standard_normal(xshape)
    t = np.asarray(_targets(r, tshape, C, ignore_index if ignore_index >= 0 and tshape else None))
    w = r.uniform(0.5, 2, (C,)) if weighted else None
    lt, tt = loom.tensor(t), torch.tensor(t)
    lw, tw = (loom.tensor(w), torch.tensor(w)) if weighted else (None, None)
    _compare(torch, lambda a: loom.nll_loss(a, lt, lw, reduction, ignore_index),
             lambda a: torch.nn.functional.nll_loss(a, tt, tw, reduction=reduction, ignore_index=ignore_index), [x])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_double_backward(reduction):
    r = _rng(10)
    t = loom.tensor(_targets(r, (3, 2), 4, ignore=2))
    w = loom.tensor(r.uniform(0.5, 2, (4,)))
    x = loom.tensor(r.standard_normal((3, 4, 2)), requires_grad=True)
    fn = lambda a: loom.nll_loss(a, t, w, reduction, 2)   # noqa: E731
    assert loom.autograd.gradcheck(fn, [x])
    g = loom.tensor(r.standard_normal((3, 2) if reduction == "none" else ()), requires_grad=True)
    bw = lambda go: loom.nll_loss_backward(go, x.detach(), t, w, reduction, 2)  # noqa: E731
    assert loom.autograd.gradcheck(bw, [g])


def test_nll_loss_uint8_target_and_all_ignored(torch):
    x = loom.tensor([[0.1, -0.3], [0.7, 0.2]])
    assert loom.nll_loss(x, loom.tensor([1, 0], dtype=loom.uint8)).item() == pytest.approx((0.3 - 0.7) / 2)
    assert np.isnan(loom.nll_loss(x, loom.tensor([-100, -100])).item())
    assert loom.nll_loss(x, loom.tensor([-100, -100]), reduction="sum").item() == 0


def test_nll_loss_errors():
    x = loom.zeros(3, 4)
    cases = [
        (IndexError, r"Target 4 is out of bounds", (x, loom.tensor([0, 1, 4])), {}),
        (IndexError, r"Target -1 is out of bounds", (x, loom.tensor([0, -1, 2])), {}),
        (ValueError, r"Expected input batch_size \(3\) to match target batch_size \(2\)", (x, loom.tensor([0, 1])), {}),
        (ValueError, r"Expected target size \[3, 5\], got \[3, 4\]", (loom.zeros(3, 4, 5), loom.zeros(3, 4, dtype=loom.int64)), {}),
        (ValueError, r"weight tensor should be defined either for all 4 classes", (x, loom.tensor([0, 1, 2])),
         {"weight": loom.ones(3)}),
        (ValueError, r"foo is not a valid value for reduction", (x, loom.tensor([0, 1, 2])), {"reduction": "foo"}),
        (TypeError, r"expected target dtype int64", (x, loom.tensor([0.0, 1.0, 2.0])), {}),
        (TypeError, r"not implemented for dtype int64", (loom.zeros(3, 4, dtype=loom.int64), loom.tensor([0, 1, 2])), {}),
        (ValueError, r"Expected 1 or more dimensions", (loom.tensor(1.0), loom.tensor(0)), {}),
    ]
    for exc, msg, args, kw in cases:
        with pytest.raises(exc, match=r"^nll_loss\(\): " + msg):
            loom.nll_loss(*args, **kw)


CE_SHAPES = [((6,), ()), ((8, 5), (8,)), ((3, 4, 5), (3, 5)), ((2, 3, 2, 2), (2, 2, 2))]


@pytest.mark.parametrize("shapes", CE_SHAPES, ids=lambda s: f"{len(s[0])}d")
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
def test_cross_entropy_class_indices(torch, shapes, reduction, weighted, smoothing):
    r = _rng(12)
    xshape, tshape = shapes
    C = xshape[1] if len(xshape) > 1 else xshape[0]
    x = r.standard_normal(xshape) * 3
    ignore = 2 if tshape else -100
    t = np.asarray(_targets(r, tshape, C, ignore if tshape else None))
    w = r.uniform(0.5, 2, (C,)) if weighted else None
    lt, tt = loom.tensor(t), torch.tensor(t)
    lw, tw = (loom.tensor(w), torch.tensor(w)) if weighted else (None, None)
    _compare(torch, lambda a: loom.cross_entropy(a, lt, lw, reduction, ignore, smoothing),
             lambda a: torch.nn.functional.cross_entropy(a, tt, tw, reduction=reduction, ignore_index=ignore,
                                                         label_smoothing=smoothing), [x])


@pytest.mark.parametrize("shapes", [(6,), (8, 5), (2, 3, 4)], ids=len)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_class_probabilities(torch, shapes, reduction, weighted, smoothing):
    r = _rng(13)
    cdim = 1 if len(shapes) > 1 else 0
    x = r.standard_normal(shapes) * 2
    p = r.uniform(0, 1, shapes)
    p = p / p.sum(cdim, keepdims=True)
    arrays = [x, p] + ([r.uniform(0.5, 2, (shapes[cdim],))] if weighted else [])
    _compare(torch, lambda a, b, *w: loom.cross_entropy(a, b, *w, reduction=reduction, label_smoothing=smoothing),
             lambda a, b, *w: torch.nn.functional.cross_entropy(a, b, *w, reduction=reduction,
                                                                label_smoothing=smoothing), arrays, 2)


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_double_backward(smoothing):
    r = _rng(14)
    t = loom.tensor(_targets(r, (4,), 3, ignore=1))
    w = loom.tensor(r.uniform(0.5, 2, (3,)))
    x = loom.tensor(r.standard_normal((4, 3)), requires_grad=True)
    fn = lambda a: loom.cross_entropy(a, t, w, "mean", 1, smoothing)   # noqa: E731
    assert loom.autograd.gradcheck(fn, [x])
    assert loom.autograd.gradgradcheck(fn, [x])


def test_cross_entropy_float32_and_errors(torch):
    r = _rng(15)
    x = r.standard_normal((64, 10)).astype(np.float32)
    t = r.integers(0, 10, 64)
    got = loom.cross_entropy(loom.tensor(x), loom.tensor(t))
    assert got.dtype == loom.float32
    want = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t))
    assert got.item() == pytest.approx(want.item(), rel=1e-6)
    with pytest.raises(ValueError, match=r"^cross_entropy\(\): label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        loom.cross_entropy(loom.tensor(x), loom.tensor(t), label_smoothing=1.5)
    with pytest.raises(ValueError, match=r"^cross_entropy\(\): bad is not a valid value for reduction"):
        loom.cross_entropy(loom.tensor(x), loom.tensor(t), reduction="bad")
    with pytest.raises(IndexError, match=r"^cross_entropy\(\): Target 10 is out of bounds"):
        loom.cross_entropy(loom.tensor(x), loom.tensor(np.full(64, 10)))
    with pytest.raises(TypeError, match=r"^cross_entropy\(\): expected target dtype int64"):
        loom.cross_entropy(loom.tensor(x), loom.tensor(x[:, 0]))


# ---------------------------------------------------------------- dropout
def test_dropout_mask_statistics_and_gradient():
    loom.manual_seed(3)
    x = loom.tensor(np.full((200, 100), 2.0), requires_grad=True)
    y = loom.dropout(x, 0.3)
    v = y.detach().numpy()
    kept = v != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(v[kept], 2.0 / 0.7)
    y.sum().backward()   # the same mask scales the gradient
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.7)


def test_dropout_is_seeded_and_identity_cases():
    x = loom.randn(30, 30)
    loom.manual_seed(7)
    a = loom.dropout(x, 0.5)
    loom.manual_seed(7)
    b = loom.dropout(x, 0.5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(loom.dropout(x, 0.5).numpy(), a.numpy())
    assert loom.dropout(x, 0.5, train=False) is x
    assert loom.dropout(x, 0.0) is x
    assert (loom.dropout(x, 1.0) == 0).all().item()
    assert loom.dropout(loom.ones(4, dtype=loom.float64), 0.5).dtype == loom.float64
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError, match=r"^dropout\(\): dropout probability has to be between 0 and 1"):
            loom.dropout(x, p)


# ---------------------------------------------------------------- var and std
VAR_CASES = [(None, None, False), (1, None, False), ([0], 0, True), ([0, 2], 2, False), ((1, 2), 0.5, True),
             ([], 1, False)]


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dim,correction,keepdim", VAR_CASES)
def test_var_std(torch, name, dim, correction, keepdim):
    x = _rng(16).standard_normal((3, 4, 5))
    kw = dict(correction=correction, keepdim=keepdim)
    # PyTorch reduces over all dims for dim=[] but its backward then gives inf: values only there
    _compare(torch, lambda a: getattr(loom, name)(a, dim, **kw), lambda a: getattr(torch, name)(a, dim, **kw), [x],
             0 if dim == [] else 1)
    xt = loom.tensor(x)
    np.testing.assert_allclose(getattr(xt, name)(dim, **kw).numpy(), getattr(loom, name)(xt, dim, **kw).numpy())


def test_var_is_two_pass_accurate():
    # a large offset cancels catastrophically in the one-pass E[x^2] - E[x]^2 form
    x = (1e4 + np.arange(1000) % 7).astype(np.float32)
    got = loom.var(loom.tensor(x)).item()
    assert got == pytest.approx(np.var(x.astype(np.float64), ddof=1), rel=1e-4)
    assert loom.std(loom.tensor(x)).dtype == loom.float32


def test_var_degenerate_and_errors():
    assert np.isnan(loom.var(loom.tensor([1.0])).item())   # 0 / 0 with one element, as PyTorch
    assert loom.var(loom.tensor([1.0, 3.0]), correction=0).item() == 1.0
    assert loom.var(loom.tensor([1.0, 3.0]), correction=5).item() == float("inf")
    with pytest.raises(IndexError, match=r"^var\(\): Dimension out of range"):
        loom.var(loom.ones(2, 3), 2)
    x = loom.tensor(_rng(17).standard_normal((2, 3)), requires_grad=True)
    assert loom.autograd.gradgradcheck(lambda a: loom.var(a, 1), [x])
    assert loom.autograd.gradcheck(lambda a: loom.var(a, []), [x])
    assert loom.autograd.gradgradcheck(lambda a: loom.std(a, correction=0), [x])


@pytest.mark.parametrize("dim,correction,keepdim", VAR_CASES[:5])
def test_std_of_constant_slices_has_zero_gradient(torch, dim, correction, keepdim):
    """std's gradient divides by std: PyTorch masks it to 0 where std is 0 (loom gave NaN), and so
    at every order and in forward mode; other slices keep theirs."""
    x = _rng(18).standard_normal((3, 4, 5))
    x[1] = 2.5   # constant along every dim but 0: some reduced slices are constant for each dim choice
    x[:, 2] = -1.0
    kw = dict(correction=correction, keepdim=keepdim)
    _compare(torch, lambda a: loom.std(a, dim, **kw), lambda a: torch.std(a, dim, **kw), [x])
    c = loom.full((2, 3, 4), 4.0, dtype=loom.float64, requires_grad=True)
    g, = loom.autograd.grad(loom.std(c, dim, **kw).sum(), c, create_graph=True)
    assert (g == 0).all().item()
    assert (loom.autograd.grad(g.sum(), c)[0] == 0).all().item()
    from loom.autograd import forward_ad as fw
    with fw.dual_level():
        d = fw.make_dual(c.detach(), loom.ones(2, 3, 4, dtype=loom.float64))
        assert (fw.unpack_dual(loom.std(d, dim, **kw)).tangent == 0).all().item()


# ---------------------------------------------------------------- class weights that require grad
# (functional module, logits x (3, 4), class targets t, probabilities p, weights w (4,)) -> loss
WEIGHTED_LOSSES = {
    "nll_loss": lambda F, x, t, p, w: F.nll_loss(x.log_softmax(1), t, weight=w),
    "cross_entropy": lambda F, x, t, p, w: F.cross_entropy(x, t, weight=w),
    "cross_entropy-smoothed": lambda F, x, t, p, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.2),
    "binary_cross_entropy": lambda F, x, t, p, w: F.binary_cross_entropy(x.sigmoid(), p, weight=w),
    "binary_cross_entropy_with_logits": lambda F, x, t, p, w: F.binary_cross_entropy_with_logits(x, p, weight=w),
    "binary_cross_entropy_with_logits-pos_weight":
        lambda F, x, t, p, w: F.binary_cross_entropy_with_logits(x, p, pos_weight=w),
}


def _weighted_inputs(lib):
    rng = _rng(19)
    x, p, w = rng.standard_normal((3, 4)), rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0.5, 2.0, 4)
    return (lib.tensor(x, requires_grad=True), lib.tensor([0, 3, 1]), lib.tensor(p), lib.tensor(w, requires_grad=True))


@pytest.mark.parametrize("case", WEIGHTED_LOSSES)
def test_loss_weights_that_require_grad_are_refused(case):
    """PyTorch has no gradient for a loss's weight (nor pos_weight) and refuses one that requires
    grad at the call; loom gave none (nll_loss) or one through its composite's parts."""
    name = case.split("-")[0]
    arg = "pos_weight" if case.endswith("pos_weight") else "weight"
    x, t, p, w = _weighted_inputs(loom)
    with pytest.raises(RuntimeError, match=rf"^{name}\(\): not differentiable with respect to argument '{arg}'\. "
                                           r"This input cannot have requires_grad True\.$"):
        WEIGHTED_LOSSES[case](loom.nn.functional, x, t, p, w)
    with loom.no_grad():
        WEIGHTED_LOSSES[case](loom.nn.functional, x, t, p, w)
    loss = WEIGHTED_LOSSES[case](loom.nn.functional, x, t, p, w.detach())
    loss.backward()
    assert x.grad is not None


@pytest.mark.parametrize("case", WEIGHTED_LOSSES)
def test_loss_weights_that_require_grad_are_refused_by_pytorch_too(torch, case):
    x, t, p, w = _weighted_inputs(torch)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument"):
        WEIGHTED_LOSSES[case](torch.nn.functional, x, t, p, w)


def test_probability_targets_give_the_weight_a_gradient(torch):
    """cross_entropy over class probabilities is composite in PyTorch too: the weight's gradient is kept."""
    lx, lt, lp, lw = _weighted_inputs(loom)
    tx, tt, tp, tw = _weighted_inputs(torch)
    loom.nn.functional.cross_entropy(lx, lp, weight=lw).backward()
    torch.nn.functional.cross_entropy(tx, tp, weight=tw).backward()
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-9)
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-9)
