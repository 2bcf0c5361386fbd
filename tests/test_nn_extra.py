"""The activations, losses, distances, normalize, dropout2d and containers added for torch parity:
values and gradients against torch.nn.functional / torch.nn, module wiring, errors."""
import math
import warnings

import numpy as np
import pytest

import loom
import loom.nn as nn
import loom.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(11)


def _pair(*shapes, scale=3.0, positive=False):
    arrs = [RNG.standard_normal(s) * scale for s in shapes]
    if positive:
        arrs = [np.abs(a) + 0.1 for a in arrs]
    return arrs


def _check(lfn, tfn, arrays, grad=True, rtol=1e-10, atol=1e-12):
    """lfn/tfn over float64 copies of arrays: same values, and the same gradients of a random projection
    (to 1e-7: torch scales some gradients by a float32 constant, hardsigmoid's 1/6)."""
    li = [loom.tensor(a, requires_grad=grad) for a in arrays]
    ti = [torch.tensor(a, requires_grad=grad) for a in arrays]
    lo, to = lfn(*li), tfn(*ti)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=rtol, atol=atol)
    assert lo.dtype is loom.float64
    if grad:
        seed = RNG.standard_normal(tuple(to.shape))
        lo.backward(loom.tensor(seed))
        to.backward(torch.tensor(seed))
        for a, b in zip(li, ti):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("name", ["relu6", "hardsigmoid", "hardswish", "mish", "logsigmoid", "softsign",
                                  "tanhshrink"])
def test_activations_match_torch(name):
    x = _pair((4, 5), scale=4.0)[0]
    _check(getattr(F, name), getattr(TF, name), [x])
    big = np.array([-40.0, -25.0, 25.0, 40.0])   # far tails stay finite (logsigmoid, mish)
    _check(getattr(F, name), getattr(TF, name), [big])


@pytest.mark.parametrize("name", ["relu6", "hardsigmoid", "hardswish", "mish"])
def test_activation_inplace(name):
    x = _pair((6,))[0]
    t = loom.tensor(x)
    out = getattr(F, name)(t, inplace=True)
    assert out is t
    np.testing.assert_allclose(t.numpy(), getattr(TF, name)(torch.tensor(x)).numpy(), rtol=1e-12)


@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_glu(dim):
    x = _pair((4, 6))[0]
    _check(lambda a: F.glu(a, dim), lambda a: TF.glu(a, dim), [x])


def test_glu_errors():
    with pytest.raises(ValueError, match="Halving dimension must be even, but dimension 1 is size 3"):
        F.glu(loom.zeros(2, 3), 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.glu(loom.zeros(2, 4), 2)


@pytest.mark.parametrize("shape,wn", [((3, 4), 4), ((2, 3, 5, 5), 3), ((2, 3, 5), 1), ((5,), 1)])
def test_prelu_matches_torch(shape, wn):
    x, w = _pair(shape)[0], RNG.uniform(0.1, 0.5, wn)
    _check(F.prelu, TF.prelu, [x, w])


def test_prelu_module_and_error():
    m = nn.PReLU(3)
    assert tuple(m.weight.shape) == (3,) and float(m.weight[0]) == 0.25
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    x = loom.tensor(_pair((2, 3, 4))[0].astype(np.float32))
    np.testing.assert_allclose(m(x).detach().numpy(),
                               torch.nn.PReLU(3)(torch.tensor(x.numpy())).detach().numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(loom.zeros(2, 4), loom.ones(3))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("beta", [1.0, 0.5, 0.0])
def test_smooth_l1_and_huber_match_torch(reduction, beta):
    x, y = _pair((4, 5), (4, 5), scale=1.0)
    _check(lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=beta),
           lambda a, b: TF.smooth_l1_loss(a, b, reduction=reduction, beta=beta), [x, y])
    delta = beta or 2.0
    _check(lambda a, b: F.huber_loss(a, b, reduction=reduction, delta=delta),
           lambda a, b: TF.huber_loss(a, b, reduction=reduction, delta=delta), [x, y])
    lo = nn.SmoothL1Loss(reduction=reduction, beta=beta)(loom.tensor(x), loom.tensor(y))
    to = torch.nn.SmoothL1Loss(reduction=reduction, beta=beta)(torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=1e-12)
    lo = nn.HuberLoss(reduction=reduction, delta=delta)(loom.tensor(x), loom.tensor(y))
    to = torch.nn.HuberLoss(reduction=reduction, delta=delta)(torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=1e-12)


def test_huber_weight_and_loss_errors():
    x, y, w = _pair((3, 4), (3, 4), (3, 4), positive=True)
    _check(lambda a, b, c: F.huber_loss(a, b, delta=0.3, weight=c),
           lambda a, b, c: TF.huber_loss(a, b, delta=0.3, weight=c), [x, y, w])
    with pytest.raises(ValueError, match="smooth_l1_loss does not support negative values for beta"):
        F.smooth_l1_loss(loom.zeros(2), loom.zeros(2), beta=-1)
    with pytest.raises(ValueError, match="huber_loss does not support non-positive values for delta"):
        F.huber_loss(loom.zeros(2), loom.zeros(2), delta=0)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.huber_loss(loom.zeros(2), loom.zeros(2), reduction="avg")


@pytest.mark.parametrize("reduction", ["mean", "batchmean", "sum", "none"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_matches_torch(reduction, log_target):
    x = np.log(RNG.dirichlet(np.ones(5), size=4))
    t = RNG.dirichlet(np.ones(5), size=4)
    t[0, 1] = 0.0   # a zero target contributes 0
    if log_target:
        t = np.log(t + 0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target),
               lambda a, b: TF.kl_div(a, b, reduction=reduction, log_target=log_target), [x, t], grad=False)
        li = loom.tensor(x, requires_grad=True)
        ti = torch.tensor(x, requires_grad=True)
        F.kl_div(li, loom.tensor(t), reduction=reduction, log_target=log_target).sum().backward()
        TF.kl_div(ti, torch.tensor(t), reduction=reduction, log_target=log_target).sum().backward()
        np.testing.assert_allclose(li.grad.numpy(), ti.grad.numpy(), rtol=1e-10)
        lo = nn.KLDivLoss(reduction=reduction, log_target=log_target)(loom.tensor(x), loom.tensor(t))
        to = torch.nn.KLDivLoss(reduction=reduction, log_target=log_target)(torch.tensor(x), torch.tensor(t))
    np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=1e-12)
    if reduction == "mean":
        with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
            F.kl_div(loom.tensor(x), loom.tensor(t), log_target=log_target)


@pytest.mark.parametrize("dim,shapes", [(1, [(4, 5), (4, 5)]), (-1, [(2, 3, 4), (3, 4)]), (0, [(6,), (6,)])])
def test_cosine_similarity_matches_torch(dim, shapes):
    a, b = _pair(*shapes)
    _check(lambda x, y: F.cosine_similarity(x, y, dim), lambda x, y: TF.cosine_similarity(x, y, dim), [a, b])
    lo = nn.CosineSimilarity(dim)(loom.tensor(a), loom.tensor(b))
    np.testing.assert_allclose(lo.numpy(), torch.nn.CosineSimilarity(dim)(torch.tensor(a), torch.tensor(b)).numpy(),
                               rtol=1e-12)
    z = np.zeros(shapes[0])   # a zero vector: eps keeps it finite (0), as torch
    _check(lambda x, y: F.cosine_similarity(x, y, dim), lambda x, y: TF.cosine_similarity(x, y, dim), [z, b],
           grad=False)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf, 0.5])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_matches_torch(p, keepdim):
    a, b = _pair((4, 5), (4, 5))
    _check(lambda x, y: F.pairwise_distance(x, y, p, keepdim=keepdim),
           lambda x, y: TF.pairwise_distance(x, y, p, keepdim=keepdim), [a, b])
    lo = nn.PairwiseDistance(p, keepdim=keepdim)(loom.tensor(a), loom.tensor(b))
    to = torch.nn.PairwiseDistance(p, keepdim=keepdim)(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=1e-12)


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0), (math.inf, -1), (3.0, 1)])
def test_normalize_matches_torch(p, dim):
    a = _pair((4, 5))[0]
    _check(lambda x: F.normalize(x, p, dim), lambda x: TF.normalize(x, p, dim), [a])
    z = np.zeros((2, 3))
    np.testing.assert_array_equal(F.normalize(loom.tensor(z)).numpy(), 0.0)


def test_dropout2d_zeroes_whole_channels():
    loom.manual_seed(0)
    x = loom.ones(8, 16, 3, 3)
    out = F.dropout2d(x, 0.5)
    per_channel = out.numpy().reshape(8, 16, 9)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()   # each channel all kept or all dropped
    assert 0 < (per_channel[:, :, 0] == 0).sum() < 128
    assert F.dropout2d(x, 0.5, training=False) is x
    assert (F.dropout2d(x, 1.0).numpy() == 0).all()
    m = nn.Dropout2d(0.25)
    m.eval()
    assert m(x) is x
    with pytest.warns(UserWarning, match="Received a 3D input"):
        F.dropout2d(loom.ones(2, 3, 4))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout2d(x, 1.5)


def test_modules_forward_like_torch():
    x = _pair((2, 6))[0]
    for name in ["ReLU6", "Hardsigmoid", "Hardswish", "Mish", "LogSigmoid", "Softsign", "Tanhshrink", "GLU"]:
        lo = getattr(nn, name)()(loom.tensor(x))
        to = getattr(torch.nn, name)()(torch.tensor(x))
        np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=1e-12, err_msg=name)
    assert repr(nn.GLU(1)) == "GLU(dim=1)"


def test_unflatten():
    x = loom.arange(24.0).reshape(2, 12)
    assert tuple(nn.Unflatten(1, (3, 4))(x).shape) == (2, 3, 4)
    assert tuple(nn.Unflatten(-1, (2, -1, 3))(x).shape) == (2, 2, 2, 3)
    assert tuple(nn.Unflatten(0, [1, 2])(x).shape) == (1, 2, 12)
    with pytest.raises(ValueError, match="don't multiply up"):
        nn.Unflatten(1, (5, 2))(x)
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
        nn.Unflatten(1, 12)
    assert nn.Identity()(x) is x


def test_parameter_list():
    pl = nn.ParameterList([loom.ones(2), nn.Parameter(loom.zeros(3))])
    pl.append(loom.full([4], 2.0))
    assert len(pl) == 3 and all(isinstance(p, nn.Parameter) for p in pl)
    assert "(2): Parameter containing: [loom.float32 of size 4]" in repr(pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert tuple(pl[-1].shape) == (4,) and len(pl[1:]) == 2
    pl[0] = loom.zeros(5)
    assert tuple(pl[0].shape) == (5,) and pl[0].requires_grad
    with pytest.raises(IndexError):
        pl[3]

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([loom.ones(2), loom.ones(3)])
    m = M()
    assert list(m.state_dict()) == ["ps.0", "ps.1"]
    assert sum(p.numel() for p in m.parameters()) == 5


def test_parameter_dict():
    pd = nn.ParameterDict({"a": loom.ones(2), "b": nn.Parameter(loom.zeros(3))})
    pd["c"] = loom.ones(1)
    assert list(pd) == ["a", "b", "c"] and len(pd) == 3 and "b" in pd
    assert all(isinstance(v, nn.Parameter) for v in pd.values())
    assert [n for n, _ in pd.named_parameters()] == ["a", "b", "c"]
    assert tuple(pd.pop("a").shape) == (2,) and list(pd.keys()) == ["b", "c"]
    with pytest.raises(KeyError):
        pd["zz"]
    pd.update([("d", loom.ones(4))])
    assert list(pd) == ["b", "c", "d"]
    with pytest.raises(ValueError, match="element #0 has length 3"):
        pd.update([("x", 1, 2)])
