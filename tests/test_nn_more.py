"""The rest of torch.nn's everyday layers, activations and losses (nn/_functional_more.py, activation_more.py,
loss_more.py, layers_more.py) against PyTorch's: same inputs and weights, same values and gradients, reprs,
state dict keys and error messages."""
import warnings

import numpy as np
import pytest

import loom
from loom import nn
import loom.nn.functional as F

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional

RNG = np.random.default_rng(0)


def rand(*shape, low=-2.0, high=2.0, dtype=np.float64):
    return RNG.uniform(low, high, size=shape).astype(dtype)


class C:
    """An argument that does not require grad (PyTorch refuses gradients for it, e.g. a loss's target)."""

    def __init__(self, a):
        self.a = a


def pair(a, grad=True):
    """The same array as a loom tensor and a torch tensor (both leaves requiring grad when grad)."""
    return loom.tensor(a.copy(), requires_grad=grad), torch.tensor(a.copy(), requires_grad=grad)


def close(a, b, atol=1e-6, rtol=1e-5):
    a = a.detach().numpy() if isinstance(a, loom.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol)


def check(lfn, tfn, *arrays, grad=True, atol=1e-6, seed_grad=True):
    """lfn(*loom tensors) against tfn(*torch tensors): values and, for float inputs, every input's gradient
    under a random upstream gradient."""
    ls, ts = zip(*[pair(a, grad and a.dtype.kind == "f") if isinstance(a, np.ndarray) else
                   pair(a.a, False) if isinstance(a, C) else (a, a) for a in arrays])
    lo, to = lfn(*ls), tfn(*ts)
    close(lo, to, atol)
    if grad:
        g = rand(*to.shape) if seed_grad else np.ones(to.shape)
        lo.backward(loom.tensor(g))
        to.backward(torch.tensor(g))
        for lt, tt in zip(ls, ts):
            if isinstance(tt, torch.Tensor) and tt.requires_grad:
                assert (lt.grad is None) == (tt.grad is None)
                if tt.grad is not None:
                    close(lt.grad, tt.grad, atol)
    return lo


def raises_same(lfn, tfn, exc=Exception):
    """Both raise, with the same message (the exception types may be loom's subclasses)."""
    with pytest.raises(exc) as te:
        tfn()
    with pytest.raises(type(te.value) if exc is Exception else exc) as le:
        lfn()
    expected = str(te.value).replace("torch.Size", "loom.Size")
    assert str(le.value) == expected, (str(le.value), expected)


SPECIAL = np.array([-3.0, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 2.0, 6.0, 7.0, 0.1])


# ---------------------------------------------------------------- activations
@pytest.mark.parametrize("name,args", [
    ("hardtanh", ()), ("hardtanh", (-0.5, 2.0)), ("selu", ()), ("celu", ()), ("celu", (0.5,)),
    ("softshrink", ()), ("softshrink", (1.0,)), ("hardshrink", ()), ("hardshrink", (1.0,)),
    ("threshold", (0.25, -4.0)), ("threshold", (1.0, 2.0)), ("rrelu", ()), ("relu6", ())])
def test_pointwise_activations_values_and_gradients_including_the_kinks(name, args):
    x = np.concatenate([SPECIAL, rand(20)])
    check(lambda t: getattr(F, name)(t, *args), lambda t: getattr(TF, name)(t, *args), x)


def test_activations_keep_nan():
    x = np.array([np.nan, 1.0, -1.0, 0.3])
    for name, args in [("hardtanh", ()), ("threshold", (0.0, 5.0)), ("hardshrink", (0.5,)), ("softshrink", (0.5,)),
                       ("celu", (0.5,)), ("selu", ())]:
        check(lambda t: getattr(F, name)(t, *args), lambda t: getattr(TF, name)(t, *args), x, grad=False)


@pytest.mark.parametrize("name,args", [("hardtanh_", ()), ("hardtanh_", (-0.5, 0.5)), ("relu_", ()), ("elu_", ()),
                                       ("elu_", (0.5,)), ("leaky_relu_", ()), ("leaky_relu_", (0.2,)), ("selu_", ()),
                                       ("celu_", (0.7,)), ("threshold_", (0.1, 3.0)), ("rrelu_", ())])
def test_inplace_functional_forms_write_into_the_input(name, args):
    x = rand(3, 5)
    lt, tt = loom.tensor(x.copy()), torch.tensor(x.copy())
    lr, tr = getattr(F, name)(lt, *args), getattr(TF, name)(tt, *args)
    assert lr is lt
    close(lt, tt)
    close(lr, tr)
    assert not np.allclose(lt.numpy(), x)   # it did change


def test_inplace_modules_and_inplace_gradients():
    x = rand(4, 6)
    for lm, tm in [(nn.Hardtanh(-0.5, 0.5, True), tnn.Hardtanh(-0.5, 0.5, True)), (nn.SELU(True), tnn.SELU(True)),
                   (nn.CELU(0.5, True), tnn.CELU(0.5, True)), (nn.Threshold(0.2, 1.0, True), tnn.Threshold(0.2, 1.0, True))]:
        def lf(t):
            return lm(t * 1.0)

        def tf(t):
            return tm(t * 1.0)
        check(lf, tf, x)


def test_modules_match_and_repr():
    x = rand(2, 3, 4, 6)
    cases = [(nn.Hardtanh(), tnn.Hardtanh()), (nn.Hardtanh(-2, 2, True), tnn.Hardtanh(-2, 2, True)),
             (nn.SELU(), tnn.SELU()), (nn.SELU(True), tnn.SELU(True)), (nn.CELU(), tnn.CELU()),
             (nn.CELU(0.5, True), tnn.CELU(0.5, True)), (nn.Softmin(1), tnn.Softmin(1)),
             (nn.Softmin(dim=-1), tnn.Softmin(dim=-1)), (nn.Softmax2d(), tnn.Softmax2d()),
             (nn.Softshrink(), tnn.Softshrink()), (nn.Softshrink(1.5), tnn.Softshrink(1.5)),
             (nn.Hardshrink(), tnn.Hardshrink()), (nn.Hardshrink(0.1), tnn.Hardshrink(0.1)),
             (nn.Threshold(0.1, 20), tnn.Threshold(0.1, 20)), (nn.Threshold(0.1, 20, True), tnn.Threshold(0.1, 20, True)),
             (nn.RReLU(), tnn.RReLU()), (nn.RReLU(0.1, 0.3, True), tnn.RReLU(0.1, 0.3, True)),
             (nn.ReLU6(True), tnn.ReLU6(True)), (nn.GLU(), tnn.GLU()), (nn.LogSigmoid(), tnn.LogSigmoid()),
             (nn.Softsign(), tnn.Softsign()), (nn.Tanhshrink(), tnn.Tanhshrink())]
    for lm, tm in cases:
        assert repr(lm) == repr(tm)
        lm.eval(), tm.eval()
        inplace = getattr(tm, "inplace", False)
        check(lambda t: lm(t * 1.0 if inplace else t), lambda t: tm(t * 1.0 if inplace else t), x)


def test_activation_errors():
    x = rand(3, 4)
    raises_same(lambda: F.hardtanh(loom.tensor(x), 2.0, 1.0), lambda: TF.hardtanh(torch.tensor(x), 2.0, 1.0))
    raises_same(lambda: nn.Hardtanh(2.0, 1.0), lambda: tnn.Hardtanh(2.0, 1.0))
    raises_same(lambda: F.celu(loom.tensor(x), 0.0), lambda: TF.celu(torch.tensor(x), 0.0))
    for dt in (np.float32, np.float64):
        raises_same(lambda: F.softshrink(loom.tensor(x.astype(dt)), -1.0),
                    lambda: TF.softshrink(torch.tensor(x.astype(dt)), -1.0))
    raises_same(lambda: F.rrelu(loom.tensor(x), 0.5, 0.1, True), lambda: TF.rrelu(torch.tensor(x), 0.5, 0.1, True))
    raises_same(lambda: nn.Softmax2d()(loom.tensor(x)), lambda: tnn.Softmax2d()(torch.tensor(x)))
    with pytest.warns(FutureWarning, match="min_value` is deprecated"):
        assert nn.Hardtanh(min_value=-3.0).min_val == -3.0


def test_softmin_dtype_and_implicit_dim_warning():
    x = rand(2, 5, 3, dtype=np.float32)
    close(F.softmin(loom.tensor(x), 1, dtype=loom.float64), TF.softmin(torch.tensor(x), 1, dtype=torch.float64))
    assert F.softmin(loom.tensor(x), 1, dtype=loom.float64).dtype == loom.float64
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        out = F.softmin(loom.tensor(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(out, TF.softmin(torch.tensor(x)))


def test_rrelu_training_draws_slopes_in_range_and_eval_uses_the_mean():
    x = -np.abs(rand(2000)) - 0.1
    lt = loom.tensor(x, requires_grad=True)
    m = nn.RReLU(0.1, 0.3)
    y = m(lt)
    slopes = y.detach().numpy() / x
    assert slopes.min() >= 0.1 - 1e-12 and slopes.max() <= 0.3 + 1e-12
    assert slopes.std() > 0.03   # random, not a constant slope
    y.sum().backward()
    close(lt.grad, slopes)   # the gradient is the drawn slope
    pos = np.abs(rand(10))
    close(m(loom.tensor(pos)), pos)   # positives pass through in training
    m.eval()
    close(m(loom.tensor(x)), x * 0.2)


def test_gumbel_softmax_soft_and_hard():
    loom.manual_seed(0)
    logits = rand(64, 5)
    lt = loom.tensor(logits, requires_grad=True)
    y = F.gumbel_softmax(lt, tau=0.5)
    close(y.sum(-1), np.ones(64))
    assert (y.detach().numpy() > 0).all()
    h = F.gumbel_softmax(lt, tau=0.5, hard=True, dim=-1)
    hn = h.detach().numpy()
    assert set(np.unique(hn)) <= {0.0, 1.0} and (hn.sum(-1) == 1).all()
    # straight-through: the gradient is the soft sample's (nonzero, summing to 0 per row for a row-constant seed)
    (h * loom.tensor(rand(64, 5))).sum().backward()
    assert np.abs(lt.grad.numpy()).sum() > 0
    # the argmax follows the logits: a dominant logit wins almost always
    big = np.zeros((200, 4))
    big[:, 2] = 20.0
    assert (F.gumbel_softmax(loom.tensor(big), hard=True).numpy().argmax(-1) == 2).all()
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(loom.tensor(logits), eps=1e-5)


# ---------------------------------------------------------------- losses
RED = ["none", "mean", "sum"]


@pytest.mark.parametrize("reduction", RED)
def test_margin_ranking_hinge_soft_margin(reduction):
    a, b = rand(7), rand(7)
    y = np.sign(rand(7)) + 0.0
    check(lambda p, q, t: F.margin_ranking_loss(p, q, t, 0.3, reduction=reduction),
          lambda p, q, t: TF.margin_ranking_loss(p, q, t, 0.3, reduction=reduction), a, b, y)
    check(lambda p, t: F.hinge_embedding_loss(p, t, 1.5, reduction=reduction),
          lambda p, t: TF.hinge_embedding_loss(p, t, 1.5, reduction=reduction), rand(4, 5), np.sign(rand(4, 5)))
    check(lambda p, t: F.soft_margin_loss(p, t, reduction=reduction),
          lambda p, t: TF.soft_margin_loss(p, t, reduction=reduction), rand(4, 5), C(np.sign(rand(4, 5))))
    for lm, tm in [(nn.MarginRankingLoss(0.5, reduction=reduction), tnn.MarginRankingLoss(0.5, reduction=reduction))]:
        assert repr(lm) == repr(tm)
        check(lm, tm, a, b, y)


@pytest.mark.parametrize("reduction", RED)
def test_cosine_embedding_loss(reduction):
    x1, x2 = rand(6, 4), rand(6, 4)
    y = np.array([1.0, -1, 1, -1, -1, 1])
    for margin in (0.0, 0.2, -0.3):
        check(lambda a, b, t: F.cosine_embedding_loss(a, b, t, margin, reduction=reduction),
              lambda a, b, t: TF.cosine_embedding_loss(a, b, t, margin, reduction=reduction), x1, x2, y)
    check(nn.CosineEmbeddingLoss(0.1, reduction=reduction), tnn.CosineEmbeddingLoss(0.1, reduction=reduction),
          rand(4), rand(4), np.array(-1.0))


@pytest.mark.parametrize("reduction", RED)
def test_multilabel_soft_margin_and_multi_margin(reduction):
    x = rand(5, 4)
    t = (rand(5, 4) > 0).astype(np.float64)
    w = rand(4, low=0.1, high=2.0)
    for weight in (None, w):
        def lf(a, b):
            return F.multilabel_soft_margin_loss(a, b, None if weight is None else loom.tensor(weight),
                                                 reduction=reduction)

        def tf(a, b):
            return TF.multilabel_soft_margin_loss(a, b, None if weight is None else torch.tensor(weight),
                                                  reduction=reduction)
        check(lf, tf, x, t)
    target = np.array([0, 3, 1, 1, 2])
    for p in (1, 2):
        for weight in (None, w):
            lm = nn.MultiMarginLoss(p, 0.7, None if weight is None else loom.tensor(weight), reduction=reduction)
            tm = tnn.MultiMarginLoss(p, 0.7, None if weight is None else torch.tensor(weight), reduction=reduction)
            assert list(lm.state_dict()) == list(tm.state_dict())
            check(lm, tm, x, target)
    check(lambda a, b: F.multi_margin_loss(a, b, reduction=reduction),
          lambda a, b: TF.multi_margin_loss(a, b, reduction=reduction), rand(4), np.array(2))


@pytest.mark.parametrize("reduction", RED)
def test_multilabel_margin_loss(reduction):
    x = rand(4, 5)
    target = np.array([[3, 0, -1, 1, 1], [0, 1, 2, 3, 4], [4, -1, 2, 2, 2], [-1, 1, 1, 1, 1]])
    check(lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
          lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction), x, target)
    check(nn.MultiLabelMarginLoss(reduction=reduction), tnn.MultiLabelMarginLoss(reduction=reduction),
          rand(5), np.array([2, 4, -1, 0, 0]))


@pytest.mark.parametrize("reduction", RED)
def test_triplet_losses(reduction):
    a, p, n = rand(6, 8), rand(6, 8), rand(6, 8)
    for kw in ({}, {"margin": 2.0, "p": 1.0}, {"swap": True}, {"p": 3.0, "eps": 1e-3, "swap": True}):
        lm, tm = nn.TripletMarginLoss(reduction=reduction, **kw), tnn.TripletMarginLoss(reduction=reduction, **kw)
        assert repr(lm) == repr(tm)
        check(lm, tm, a, p, n)
        check(lambda *t: F.triplet_margin_loss(*t, reduction=reduction, **kw),
              lambda *t: TF.triplet_margin_loss(*t, reduction=reduction, **kw), a, p, n)
    lm = nn.TripletMarginWithDistanceLoss(reduction=reduction)
    tm = tnn.TripletMarginWithDistanceLoss(reduction=reduction)
    assert repr(lm) == repr(tm)
    check(lm, tm, a, p, n)

    def cos_l(x, y):
        return 1.0 - F.cosine_similarity(x, y)

    def cos_t(x, y):
        return 1.0 - TF.cosine_similarity(x, y)
    check(nn.TripletMarginWithDistanceLoss(distance_function=cos_l, margin=0.5, swap=True, reduction=reduction),
          tnn.TripletMarginWithDistanceLoss(distance_function=cos_t, margin=0.5, swap=True, reduction=reduction),
          a, p, n)


@pytest.mark.parametrize("reduction", RED)
def test_poisson_and_gaussian_nll(reduction):
    x = rand(4, 5)
    t = np.floor(rand(4, 5, low=0, high=5))
    for log_input, full in [(True, False), (True, True), (False, False), (False, True)]:
        inp = x if log_input else np.abs(x) + 0.1
        lm = nn.PoissonNLLLoss(log_input, full, reduction=reduction)
        tm = tnn.PoissonNLLLoss(log_input, full, reduction=reduction)
        check(lm, tm, inp, t)
    var = rand(4, 5, low=0.0, high=2.0)
    var[0, 0] = 0.0   # clamped to eps
    for full in (False, True):
        check(nn.GaussianNLLLoss(full=full, reduction=reduction), tnn.GaussianNLLLoss(full=full, reduction=reduction),
              x, rand(4, 5), var)
    # homoscedastic shapes: var one dim short, or of size 1 on one dim; and a float var
    check(lambda a, b, v: F.gaussian_nll_loss(a, b, v, reduction=reduction),
          lambda a, b, v: TF.gaussian_nll_loss(a, b, v, reduction=reduction), x, rand(4, 5), np.abs(rand(4)) + 0.1)
    check(lambda a, b, v: F.gaussian_nll_loss(a, b, v, eps=0.5, reduction=reduction),
          lambda a, b, v: TF.gaussian_nll_loss(a, b, v, eps=0.5, reduction=reduction), x, rand(4, 5),
          np.abs(rand(4, 1)) + 0.1)
    check(lambda a, b: F.gaussian_nll_loss(a, b, 0.7, reduction=reduction),
          lambda a, b: TF.gaussian_nll_loss(a, b, 0.7, reduction=reduction), x, rand(4, 5))


def test_loss_legacy_size_average_and_reduce():
    a, b, y = rand(5), rand(5), np.sign(rand(5))
    for sa, red in [(False, None), (None, False), (True, True)]:
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            lo = F.margin_ranking_loss(loom.tensor(a), loom.tensor(b), loom.tensor(y), size_average=sa, reduce=red)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            to = TF.margin_ranking_loss(torch.tensor(a), torch.tensor(b), torch.tensor(y), size_average=sa, reduce=red)
            tm = tnn.SoftMarginLoss(size_average=sa, reduce=red)
        close(lo, to)
        with pytest.warns(UserWarning):
            lm = nn.SoftMarginLoss(size_average=sa, reduce=red)
        assert lm.reduction == tm.reduction
        check(lm, tm, a, C(y))


def test_loss_errors():
    L, T = loom.tensor, torch.tensor
    x = rand(3, 4)
    raises_same(lambda: F.margin_ranking_loss(L(rand(3)), L(rand(3, 1)), L(rand(3))),
                lambda: TF.margin_ranking_loss(T(rand(3)), T(rand(3, 1)), T(rand(3))), RuntimeError)
    for fn in ("hinge_embedding_loss", "soft_margin_loss", "poisson_nll_loss", "multilabel_soft_margin_loss"):
        raises_same(lambda: getattr(F, fn)(L(x), L(x), reduction="foo"),
                    lambda: getattr(TF, fn)(T(x), T(x), reduction="foo"), ValueError)
    raises_same(lambda: F.cosine_embedding_loss(L(x), L(x), L(rand(3, 1))),
                lambda: TF.cosine_embedding_loss(T(x), T(x), T(rand(3, 1))), RuntimeError)
    raises_same(lambda: F.cosine_embedding_loss(L(x), L(rand(3)), L(rand(3))),
                lambda: TF.cosine_embedding_loss(T(x), T(rand(3)), T(rand(3))), RuntimeError)
    raises_same(lambda: F.cosine_embedding_loss(L(rand(4)), L(rand(4, 1)), L(1.0)),
                lambda: TF.cosine_embedding_loss(T(rand(4)), T(rand(4, 1)), T(1.0)), RuntimeError)
    li, ti = L(np.array([0, 1, 2])), T(np.array([0, 1, 2]))
    raises_same(lambda: F.multi_margin_loss(L(x), li, p=3), lambda: TF.multi_margin_loss(T(x), ti, p=3), ValueError)
    raises_same(lambda: F.multi_margin_loss(L(x), li, weight=L(x)), lambda: TF.multi_margin_loss(T(x), ti, weight=T(x)),
                ValueError)
    raises_same(lambda: nn.MultiMarginLoss(weight=L(x)), lambda: tnn.MultiMarginLoss(weight=T(x)), ValueError)
    raises_same(lambda: F.multi_margin_loss(L(x), L(np.array([0, 1]))),
                lambda: TF.multi_margin_loss(T(x), T(np.array([0, 1]))), RuntimeError)
    raises_same(lambda: F.multi_margin_loss(L(rand(2, 3, 4)), L(np.array([0, 1]))),
                lambda: TF.multi_margin_loss(T(rand(2, 3, 4)), T(np.array([0, 1]))), RuntimeError)
    raises_same(lambda: F.multi_margin_loss(L(x), L(np.array([0, 1, 7]))),
                lambda: TF.multi_margin_loss(T(x), T(np.array([0, 1, 7]))), RuntimeError)
    tgt = np.array([[0, 1, -1, 0]] * 2)
    raises_same(lambda: F.multilabel_margin_loss(L(x), L(tgt)), lambda: TF.multilabel_margin_loss(T(x), T(tgt)),
                RuntimeError)
    raises_same(lambda: F.multilabel_margin_loss(L(x), L(np.array([[0, 9, -1, 0]] * 3))),
                lambda: TF.multilabel_margin_loss(T(x), T(np.array([[0, 9, -1, 0]] * 3))), RuntimeError)
    raises_same(lambda: F.triplet_margin_loss(L(x), L(x), L(rand(4))),
                lambda: TF.triplet_margin_loss(T(x), T(x), T(rand(4))), RuntimeError)
    raises_same(lambda: F.triplet_margin_loss(L(x), L(x), L(x), margin=-1),
                lambda: TF.triplet_margin_loss(T(x), T(x), T(x), margin=-1), ValueError)
    raises_same(lambda: nn.TripletMarginLoss(margin=-1.0), lambda: tnn.TripletMarginLoss(margin=-1.0), ValueError)
    raises_same(lambda: nn.TripletMarginWithDistanceLoss(margin=0), lambda: tnn.TripletMarginWithDistanceLoss(margin=0),
                ValueError)
    raises_same(lambda: F.triplet_margin_with_distance_loss(L(x), L(x), L(x), reduction="x"),
                lambda: TF.triplet_margin_with_distance_loss(T(x), T(x), T(x), reduction="x"), ValueError)
    raises_same(lambda: F.gaussian_nll_loss(L(x), L(x), L(np.ones(2))),
                lambda: TF.gaussian_nll_loss(T(x), T(x), T(np.ones(2))), ValueError)
    raises_same(lambda: F.gaussian_nll_loss(L(x), L(x), L(-np.ones((3, 4)))),
                lambda: TF.gaussian_nll_loss(T(x), T(x), T(-np.ones((3, 4)))), ValueError)
    raises_same(lambda: F.gaussian_nll_loss(L(x), L(x), -1.0), lambda: TF.gaussian_nll_loss(T(x), T(x), -1.0),
                ValueError)


def test_loss_reprs_and_attributes():
    for name in ("MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss", "SoftMarginLoss",
                 "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss", "TripletMarginLoss",
                 "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "GaussianNLLLoss"):
        lm, tm = getattr(nn, name)(), getattr(tnn, name)()
        assert repr(lm) == repr(tm)
        for k, v in vars(tm).items():
            if not k.startswith("_"):
                assert getattr(lm, k) == v, (name, k)


# ---------------------------------------------------------------- dropout
def test_feature_dropouts_zero_whole_channels_and_scale():
    loom.manual_seed(1)
    x = np.ones((8, 16, 5)) + 0.0
    y = nn.Dropout1d(0.4)(loom.tensor(x)).numpy()
    per_channel = y.reshape(8, 16, -1)
    assert ((per_channel == 0).all(-1) | np.isclose(per_channel, 1 / 0.6).all(-1)).all()
    frac = (per_channel == 0).all(-1).mean()
    assert 0.2 < frac < 0.6
    y3 = F.dropout3d(loom.tensor(np.ones((4, 10, 2, 3, 2))), 0.5).numpy().reshape(4, 10, -1)
    assert ((y3 == 0).all(-1) | (y3 == 2.0).all(-1)).all() and 0 < (y3 == 0).mean() < 1
    # unbatched (C, L) and (C, D, H, W): dim 0 is the channel
    y1 = F.dropout1d(loom.tensor(np.ones((30, 4))), 0.5).numpy()
    assert ((y1 == 0).all(-1) | (y1 == 2.0).all(-1)).all() and 0 < (y1 == 0).mean() < 1
    m = nn.Dropout3d(0.5).eval()
    close(m(loom.tensor(x[None, :, :, :, None])), x[None, :, :, :, None])
    assert repr(nn.Dropout1d(0.2)) == repr(tnn.Dropout1d(0.2)) and repr(nn.Dropout3d(0.2, True)) == repr(
        tnn.Dropout3d(0.2, True))
    raises_same(lambda: F.dropout1d(loom.tensor(rand(2, 3, 4, 5))), lambda: TF.dropout1d(torch.tensor(rand(2, 3, 4, 5))),
                RuntimeError)
    raises_same(lambda: nn.Dropout1d(1.5), lambda: tnn.Dropout1d(1.5), ValueError)
    with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input"):
        F.dropout3d(loom.tensor(rand(2, 3, 4)), 0.5, training=False)
    # gradient: the same mask and scale
    lt = loom.tensor(rand(6, 7, 3), requires_grad=True)
    out = F.dropout1d(lt, 0.5)
    out.sum().backward()
    close(lt.grad, (out.detach().numpy() != 0) * 2.0)


def test_alpha_dropouts_keep_selu_statistics():
    loom.manual_seed(2)
    x = RNG.standard_normal(200000)
    y = F.alpha_dropout(loom.tensor(x), 0.3, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    # dropped entries all take one value: a' = -alpha * a + alpha * a * p ... the same for torch's
    alpha, p = 1.7580993408473766, 0.3
    a = 1 / np.sqrt((alpha ** 2 * p + 1) * (1 - p))
    kept = np.isclose(y, x * a + alpha * a * p)
    dropped = np.isclose(y, -alpha * a + alpha * a * p)
    assert (kept | dropped).all() and 0.25 < dropped.mean() < 0.35
    close(F.alpha_dropout(loom.tensor(x), 0.3), x)   # training=False by default, as PyTorch
    f = F.feature_alpha_dropout(loom.tensor(np.ones((50, 40, 3))), 0.5, training=True).numpy()
    assert (f == f[:, :, :1]).all() and len(np.unique(f)) == 2
    close(nn.AlphaDropout(0.5).eval()(loom.tensor(x[:10])), x[:10])
    assert repr(nn.AlphaDropout(0.2)) == repr(tnn.AlphaDropout(0.2))
    assert repr(nn.FeatureAlphaDropout(0.2)) == repr(tnn.FeatureAlphaDropout(0.2))
    close(F.alpha_dropout(loom.tensor(x[:5]), 1.0, True), np.zeros(5))
    raises_same(lambda: F.alpha_dropout(loom.tensor(x), 1.5), lambda: TF.alpha_dropout(torch.tensor(x), 1.5),
                ValueError)


# ---------------------------------------------------------------- layers
def test_rms_norm():
    x = rand(2, 3, 4, dtype=np.float32)
    for shape, eps in [([4], None), ((3, 4), 1e-3), ([4], 1e-6)]:
        w = rand(*shape, dtype=np.float32)
        check(lambda a, b: F.rms_norm(a, shape, b, eps), lambda a, b: TF.rms_norm(a, shape, b, eps), x, w, atol=1e-5)
        check(lambda a: F.rms_norm(a, shape, eps=eps), lambda a: TF.rms_norm(a, shape, eps=eps), x, atol=1e-5)
    lm, tm = nn.RMSNorm([3, 4]), tnn.RMSNorm([3, 4])
    assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict())
    close(lm.weight, tm.weight)
    lm2, tm2 = nn.RMSNorm(4, eps=1e-5, elementwise_affine=False), tnn.RMSNorm(4, eps=1e-5, elementwise_affine=False)
    assert repr(lm2) == repr(tm2) and lm2.weight is None and list(lm2.state_dict()) == []
    check(lm2, tm2, x, atol=1e-5)
    raises_same(lambda: F.rms_norm(loom.tensor(x), [3]), lambda: TF.rms_norm(torch.tensor(x), [3]), RuntimeError)


def test_bilinear():
    lm, tm = nn.Bilinear(4, 5, 3), tnn.Bilinear(4, 5, 3).double()
    assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict())
    assert tuple(lm.weight.shape) == (3, 4, 5) and np.abs(lm.weight.numpy()).max() <= 0.5
    assert np.abs(lm.bias.numpy()).max() <= 0.5 and lm.bias.numpy().std() > 0
    lm = lm.double()
    lm.load_state_dict({k: v.detach().numpy().copy() for k, v in tm.state_dict().items()})
    x1, x2 = rand(2, 6, 4), rand(2, 6, 5)
    check(lm, tm, x1, x2)
    close(lm.weight.grad, tm.weight.grad), close(lm.bias.grad, tm.bias.grad)
    check(lambda a, b, w: F.bilinear(a, b, w), lambda a, b, w: TF.bilinear(a, b, w), rand(6, 4), rand(6, 5),
          rand(3, 4, 5))
    assert repr(nn.Bilinear(2, 2, 2, bias=False)) == repr(tnn.Bilinear(2, 2, 2, bias=False))
    L, T = loom.tensor, torch.tensor
    x = rand(3, 4)
    raises_same(lambda: F.bilinear(L(x), L(x), L(rand(2, 4, 5))), lambda: TF.bilinear(T(x), T(x), T(rand(2, 4, 5))),
                RuntimeError)
    raises_same(lambda: F.bilinear(L(x), L(rand(2, 4)), L(rand(2, 4, 4))),
                lambda: TF.bilinear(T(x), T(rand(2, 4)), T(rand(2, 4, 4))), RuntimeError)


def test_local_response_norm():
    for shape in [(2, 6, 5), (2, 7, 3, 4), (1, 5, 2, 3, 2)]:
        x = rand(*shape)
        for size in (1, 2, 3, 4):
            lm, tm = nn.LocalResponseNorm(size, 0.1, 0.6, 1.5), tnn.LocalResponseNorm(size, 0.1, 0.6, 1.5)
            assert repr(lm) == repr(tm)
            check(lm, tm, x)
    raises_same(lambda: F.local_response_norm(loom.tensor(rand(3, 4)), 2),
                lambda: TF.local_response_norm(torch.tensor(rand(3, 4)), 2), ValueError)


def test_pdist():
    x = rand(6, 4)
    for p in (2, 1, 3.5, float("inf"), 0.5):
        check(lambda a: F.pdist(a, p), lambda a: TF.pdist(a, p), x)
    raises_same(lambda: F.pdist(loom.tensor(rand(2, 3, 4))), lambda: TF.pdist(torch.tensor(rand(2, 3, 4))))
    raises_same(lambda: F.pdist(loom.tensor(x), -1), lambda: TF.pdist(torch.tensor(x), -1))
    assert tuple(F.pdist(loom.tensor(rand(1, 3))).shape) == (0,)


def test_lazy_linear_materialises_on_first_call():
    lm, tm = nn.LazyLinear(3), tnn.LazyLinear(3)
    assert repr(lm) == repr(tm) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert repr(lm.weight) == repr(tm.weight) == "<UninitializedParameter>"
    assert list(lm.state_dict()) == list(tm.state_dict())
    assert isinstance(lm.weight, nn.UninitializedParameter) and lm.has_uninitialized_params()
    x = rand(2, 7, dtype=np.float32)
    y = lm(loom.tensor(x))
    assert type(lm) is nn.Linear and type(lm.weight) is nn.Parameter
    assert repr(lm) == "Linear(in_features=7, out_features=3, bias=True)"
    w = lm.weight.numpy()
    assert w.shape == (3, 7) and np.abs(w).max() <= 1 / np.sqrt(7) and w.std() > 0
    close(y, x @ w.T + lm.bias.numpy(), atol=1e-5)
    y.sum().backward()
    assert lm.weight.grad is not None and tuple(lm.weight.grad.shape) == (3, 7)
    # an optimizer built afterwards sees the materialised parameters
    assert [tuple(p.shape) for p in lm.parameters()] == [(3, 7), (3,)]
    # loading a state dict materialises too
    tl = tnn.Linear(5, 3)
    lz = nn.LazyLinear(3, bias=True)
    lz.load_state_dict({k: v.detach().numpy().copy() for k, v in tl.state_dict().items()})
    assert lz.in_features == 5
    close(lz(loom.tensor(rand(4, 5, dtype=np.float32))).shape and lz.weight, tl.weight)
    nb = nn.LazyLinear(2, bias=False)
    assert nb.bias is None and list(nb.state_dict()) == ["weight"]
    nb(loom.tensor(rand(3, 4, dtype=np.float32)))
    assert nb.bias is None and tuple(nb.weight.shape) == (2, 4)


@pytest.mark.parametrize("kw", [{}, {"padding": 1}, {"stride": 2}, {"dilation": 2}, {"dilation": (1, 2), "padding": (2, 1), "stride": (1, 3)}])
def test_unfold_and_fold(kw):
    x = rand(2, 3, 7, 8)
    for k in (2, (3, 2)):
        check(lambda a: F.unfold(a, k, **kw), lambda a: TF.unfold(a, k, **kw), x)
        lu, tu = nn.Unfold(k, **kw), tnn.Unfold(k, **kw)
        assert repr(lu) == repr(tu)
        cols = TF.unfold(torch.tensor(x), k, **kw).numpy()
        lf, tf = nn.Fold((7, 8), k, **kw), tnn.Fold((7, 8), k, **kw)
        assert repr(lf) == repr(tf)
        check(lf, tf, rand(*cols.shape))
        check(lf, tf, rand(*cols.shape[1:]))   # unbatched
    check(lambda a: F.unfold(a, 2), lambda a: TF.unfold(a, 2), rand(3, 4, 5))


def test_fold_unfold_errors():
    L, T = loom.tensor, torch.tensor
    raises_same(lambda: F.fold(L(rand(2, 5, 12)), (4, 5), 2), lambda: TF.fold(T(rand(2, 5, 12)), (4, 5), 2))
    raises_same(lambda: F.fold(L(rand(2, 8, 10)), (4, 5), 2), lambda: TF.fold(T(rand(2, 8, 10)), (4, 5), 2))
    raises_same(lambda: F.fold(L(rand(2, 2, 8, 12)), (4, 5), 2), lambda: TF.fold(T(rand(2, 2, 8, 12)), (4, 5), 2))
    raises_same(lambda: F.unfold(L(rand(1, 1, 2, 2)), 3), lambda: TF.unfold(T(rand(1, 1, 2, 2)), 3))


def test_channel_shuffle():
    x = rand(2, 6, 3, 2)
    for g in (1, 2, 3, 6):
        lm, tm = nn.ChannelShuffle(g), tnn.ChannelShuffle(g)
        assert repr(lm) == repr(tm)
        check(lm, tm, x)
        check(lambda a: F.channel_shuffle(a, g), lambda a: TF.channel_shuffle(a, g), rand(2, 6, 4))
    L, T = loom.tensor, torch.tensor
    raises_same(lambda: F.channel_shuffle(L(rand(2, 6, 3)), 4), lambda: TF.channel_shuffle(T(rand(2, 6, 3)), 4))
    raises_same(lambda: F.channel_shuffle(L(rand(2, 6, 3)), 0), lambda: TF.channel_shuffle(T(rand(2, 6, 3)), 0))
    raises_same(lambda: F.channel_shuffle(L(rand(2, 6)), 2), lambda: TF.channel_shuffle(T(rand(2, 6)), 2))


@pytest.mark.parametrize("p", [1, 2, 3.0, float("inf")])
def test_lp_pool(p):
    x = np.abs(rand(2, 3, 9, 8)) + 0.1   # positive: x ** p is defined for fractional p
    for k, s, ceil in [(2, None, False), (3, 2, False), ((2, 3), (1, 2), True)]:
        lm, tm = nn.LPPool2d(p, k, s, ceil), tnn.LPPool2d(p, k, s, ceil)
        assert repr(lm) == repr(tm)
        check(lm, tm, x, atol=1e-5)
    for k, s, ceil in [(2, None, False), (3, 2, True)]:
        lm, tm = nn.LPPool1d(p, k, s, ceil), tnn.LPPool1d(p, k, s, ceil)
        assert repr(lm) == repr(tm)
        check(lm, tm, x[:, :, 0], atol=1e-5)
    # negative inputs with an even p, as PyTorch (the sign/relu guard of the average)
    check(lambda a: F.lp_pool2d(a, 2, 2), lambda a: TF.lp_pool2d(a, 2, 2), rand(1, 2, 4, 4))


def test_max_unpool():
    x = rand(2, 3, 8, 6)
    tv, ti = TF.max_pool2d(torch.tensor(x), 2, return_indices=True)
    for kw in ({}, {"output_size": (9, 7)}, {"output_size": [2, 3, 8, 6]}):
        lm, tm = nn.MaxUnpool2d(2), tnn.MaxUnpool2d(2)
        assert repr(lm) == repr(tm)
        check(lambda v, i: lm(v, i, **kw), lambda v, i: tm(v, i, **kw), tv.detach().numpy(), ti.numpy())
    tv, ti = TF.max_pool2d(torch.tensor(x), 3, 2, 1, return_indices=True)
    check(lambda v, i: F.max_unpool2d(v, i, 3, 2, 1, (8, 6)), lambda v, i: TF.max_unpool2d(v, i, 3, 2, 1, (8, 6)),
          tv.detach().numpy(), ti.numpy())
    # unbatched (C, H, W)
    check(lambda v, i: F.max_unpool2d(v, i, 3, 2, 1, (8, 6)), lambda v, i: TF.max_unpool2d(v, i, 3, 2, 1, (8, 6)),
          tv[0].detach().numpy(), ti[0].numpy())
    x1 = rand(2, 3, 10)
    tv, ti = TF.max_pool1d(torch.tensor(x1), 2, return_indices=True)
    for kw in ({}, {"output_size": [11]}):
        lm, tm = nn.MaxUnpool1d(2), tnn.MaxUnpool1d(2)
        assert repr(lm) == repr(tm)
        check(lambda v, i: lm(v, i, **kw), lambda v, i: tm(v, i, **kw), tv.detach().numpy(), ti.numpy())
    assert repr(nn.MaxUnpool1d(2, 1, 1)) == repr(tnn.MaxUnpool1d(2, 1, 1))
    # loom's own max_pool2d indices round-trip
    lv, li = F.max_pool2d(loom.tensor(x), 2, return_indices=True)
    close(F.max_unpool2d(lv, li, 2), TF.max_unpool2d(*TF.max_pool2d(torch.tensor(x), 2, return_indices=True), 2))
    L, T = loom.tensor, torch.tensor
    bad = np.array([[[[0, 1], [2, 99]]]])
    raises_same(lambda: F.max_unpool2d(L(rand(1, 1, 2, 2)), L(bad), 2),
                lambda: TF.max_unpool2d(T(rand(1, 1, 2, 2)), T(bad), 2), RuntimeError)
    ok = np.array([[[[0, 1], [2, 3]]]])
    raises_same(lambda: F.max_unpool2d(L(rand(1, 1, 2, 2)), L(ok), 2, output_size=(9, 9)),
                lambda: TF.max_unpool2d(T(rand(1, 1, 2, 2)), T(ok), 2, output_size=(9, 9)), ValueError)
    raises_same(lambda: F.max_unpool2d(L(rand(1, 1, 2, 2)), L(ok), 2, output_size=(9,)),
                lambda: TF.max_unpool2d(T(rand(1, 1, 2, 2)), T(ok), 2, output_size=(9,)), ValueError)


def test_new_names_are_exported_like_torch():
    import loom.nn.functional as LF
    for name in ("Hardtanh", "SELU", "CELU", "Softmin", "Softmax2d", "Softshrink", "Hardshrink", "Threshold", "RReLU",
                 "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss", "SoftMarginLoss",
                 "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss", "TripletMarginLoss",
                 "TripletMarginWithDistanceLoss", "PoissonNLLLoss", "GaussianNLLLoss", "Dropout1d", "Dropout3d",
                 "AlphaDropout", "FeatureAlphaDropout", "RMSNorm", "Bilinear", "LocalResponseNorm", "LazyLinear",
                 "UninitializedParameter", "Fold", "Unfold", "ChannelShuffle", "LPPool1d", "LPPool2d", "MaxUnpool1d",
                 "MaxUnpool2d"):
        assert name in nn.__all__ and hasattr(tnn, name) and getattr(nn.modules, name) is getattr(nn, name)
    for name in ("hardtanh_", "relu_", "elu_", "leaky_relu_", "selu_", "celu_", "threshold_", "rrelu_",
                 "gumbel_softmax", "pdist", "fold", "unfold", "lp_pool1d", "max_unpool2d", "rms_norm"):
        assert callable(getattr(LF, name)) and hasattr(TF, name)
