"""nn.utils.parametrize, parametrizations.weight_norm/spectral_norm, the hook-based weight_norm and
spectral_norm, BatchNorm fusion and get_total_norm, against PyTorch: same weights in, same
state_dict keys, outputs and gradients out."""
import numpy as np
import pytest

import loom
from loom import nn
from loom.nn.utils import parametrizations, parametrize

torch = pytest.importorskip("torch")


def _copy(src, dst):
    """dst (torch) gets src's (loom) parameters and buffers, by state_dict key."""
    with torch.no_grad():
        for k, v in src.state_dict().items():
            dst.state_dict()[k].copy_(torch.tensor(v.numpy()))


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


def test_register_parametrization_and_remove():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and parametrize.is_parametrized(m, "weight")
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    W = m.weight
    _close(W, W.t())
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    A = loom.randn(3, 3)
    m.weight = A + A.t()   # through right_inverse
    _close(m.weight, A + A.t())
    m(loom.randn(2, 3)).sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    with parametrize.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter) and list(m.state_dict()) == ["bias", "weight"]
    _close(m.weight, A + A.t())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(m, "weight")
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        parametrize.register_parametrization(m, "nope", Symmetric())


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(dim):
    m, t = nn.Conv2d(3, 4, 3), torch.nn.Conv2d(3, 4, 3)
    _copy(m, t)
    parametrizations.weight_norm(m, dim=dim)
    torch.nn.utils.parametrizations.weight_norm(t, dim=dim)
    assert list(m.state_dict()) == list(t.state_dict())
    _close(m.parametrizations.weight.original0, t.parametrizations.weight.original0)
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)
    y, ty = m(loom.tensor(x)), t(torch.tensor(x))
    _close(y, ty)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    for k in ("original0", "original1"):
        _close(getattr(m.parametrizations.weight, k).grad, getattr(t.parametrizations.weight, k).grad, 1e-4)


def test_spectral_norm_matches_torch_given_the_same_vectors():
    m, t = nn.Linear(5, 4), torch.nn.Linear(5, 4)
    _copy(m, t)
    parametrizations.spectral_norm(m)
    torch.nn.utils.parametrizations.spectral_norm(t)
    assert list(m.state_dict()) == list(t.state_dict())
    _copy(m, t)   # the same random u, v in both
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    for mode in ("train", "eval"):
        getattr(m, mode)(), getattr(t, mode)()
        y, ty = m(loom.tensor(x)), t(torch.tensor(x))
        _close(y, ty)
    s = np.linalg.svd(m.weight.detach().numpy(), compute_uv=False)
    assert abs(s[0] - 1) < 1e-3   # the largest singular value is normalised to 1


def test_hook_based_norms_match_torch():
    m, t = nn.Linear(4, 3), torch.nn.Linear(4, 3)
    _copy(m, t)
    with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
        nn.utils.weight_norm(m)
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(t)
    assert list(m.state_dict()) == list(t.state_dict()) == ["bias", "weight_g", "weight_v"]
    x = np.random.default_rng(2).standard_normal((2, 4)).astype(np.float32)
    y, ty = m(loom.tensor(x)), t(torch.tensor(x))
    _close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    _close(m.weight_g.grad, t.weight_g.grad)
    nn.utils.remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        nn.utils.remove_weight_norm(m)
    c, tc = nn.Conv2d(2, 3, 3), torch.nn.Conv2d(2, 3, 3)
    _copy(c, tc)
    nn.utils.spectral_norm(c)
    torch.nn.utils.spectral_norm(tc)
    assert [k for k in c.state_dict()] == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert list(c.state_dict()) == [k for k in tc.state_dict()]
    _copy(c, tc)
    xi = np.random.default_rng(3).standard_normal((1, 2, 5, 5)).astype(np.float32)
    _close(c(loom.tensor(xi)), tc(torch.tensor(xi)))
    nn.utils.remove_spectral_norm(c)
    assert list(c.state_dict()) == ["bias", "weight"]


def test_fusion_equals_the_pair():
    conv, bn = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)
    bn.running_mean.copy_(loom.randn(4))
    bn.running_var.copy_(loom.rand(4) + 0.5)
    conv.eval(), bn.eval()
    x = loom.randn(2, 3, 6, 6)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    _close(fused(x), bn(conv(x)))
    lin, bn1 = nn.Linear(5, 4), nn.BatchNorm1d(4)
    bn1.running_var.copy_(loom.rand(4) + 0.5)
    lin.eval(), bn1.eval()
    z = loom.randn(3, 5)
    _close(nn.utils.fuse_linear_bn_eval(lin, bn1)(z), bn1(lin(z)))
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_conv_bn_eval(conv.train(), bn)


def test_total_norm_and_clip_with_norm():
    ps = [nn.Parameter(loom.ones(3)), nn.Parameter(loom.ones(4))]
    for p in ps:
        p.grad = loom.full(tuple(p.shape), 2.0)
    total = nn.utils.get_total_norm([p.grad for p in ps])
    assert abs(float(total) - np.sqrt(7 * 4.0)) < 1e-5
    nn.utils.clip_grads_with_norm_(ps, 1.0, total)
    assert abs(float(nn.utils.get_total_norm([p.grad for p in ps])) - 1.0) < 1e-4
