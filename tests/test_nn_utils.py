"""loom.nn.utils (gradient clipping, parameters <-> vector) against torch.nn.utils."""
import math

import numpy as np
import pytest

import loom
from loom.nn import utils

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)
SHAPES = [(3, 4), (5,), ()]
GRADS = [RNG.standard_normal(s) for s in SHAPES]


def _params(lib, grads=GRADS, dtype="float32"):
    ps = []
    for g in grads:
        p = lib.zeros(g.shape, dtype=getattr(lib, dtype), requires_grad=True)
        p.grad = lib.tensor(g.copy(), dtype=getattr(lib, dtype))
        ps.append(p)
    return ps


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.numpy()


@pytest.mark.parametrize("norm_type", [2.0, 1, math.inf, 3.5, 0.5, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, dtype):
    ours, theirs = _params(loom, dtype=dtype), _params(torch, dtype=dtype)
    n1 = utils.clip_grad_norm_(ours, max_norm, norm_type)
    n2 = torch.nn.utils.clip_grad_norm_(theirs, max_norm, float(norm_type))
    assert isinstance(n1, loom.Tensor) and n1.ndim == 0 and n1.dtype is getattr(loom, dtype)
    np.testing.assert_allclose(_np(n1), _np(n2), rtol=1e-5)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(_np(a.grad), _np(b.grad), rtol=1e-5, atol=1e-7)
    if float(n2) < max_norm:   # below max_norm: untouched
        for a, g in zip(ours, GRADS):
            np.testing.assert_allclose(_np(a.grad), g, rtol=1e-6)


def test_clip_grad_norm_single_tensor_skips_missing_grads_and_empty():
    p = loom.zeros(4, requires_grad=True)
    p.grad = loom.tensor([3.0, 4.0, 0.0, 0.0])
    q = loom.zeros(2, requires_grad=True)   # no grad: ignored
    total = utils.clip_grad_norm_([p, q], max_norm=1.0)
    assert float(total) == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8, 0, 0], rtol=1e-5)
    assert q.grad is None
    p.grad = loom.tensor([3.0, 4.0, 0.0, 0.0])
    assert float(utils.clip_grad_norm_(p, 1.0)) == pytest.approx(5.0)
    assert float(utils.clip_grad_norm_([], 1.0)) == 0.0
    assert float(utils.clip_grad_norm_([q], 1.0, foreach=True)) == 0.0


def test_clip_grad_norm_nonfinite():
    p = loom.zeros(3, requires_grad=True)
    p.grad = loom.tensor([1.0, math.inf, 2.0])
    with pytest.raises(RuntimeError, match="total norm of order 2.0 .* non-finite"):
        utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    np.testing.assert_array_equal(p.grad.numpy(), [1.0, math.inf, 2.0])   # left as it was
    t = torch.zeros(3, requires_grad=True)
    t.grad = torch.tensor([1.0, math.inf, 2.0])
    n1, n2 = utils.clip_grad_norm_([p], 1.0), torch.nn.utils.clip_grad_norm_([t], 1.0)
    assert math.isinf(float(n1)) and math.isinf(float(n2))
    np.testing.assert_array_equal(np.isnan(p.grad.numpy()), np.isnan(t.grad.numpy()))


def test_clip_grad_errors():
    with pytest.raises(TypeError, match="clip_grad_norm_"):
        utils.clip_grad_norm_([1.0], 1.0)
    with pytest.raises(TypeError, match="clip_grad_norm_"):
        utils.clip_grad_norm_(5, 1.0)
    with pytest.raises(TypeError, match="clip_grad_value_"):
        utils.clip_grad_value_([loom.zeros(1)], "big")


@pytest.mark.parametrize("clip", [0.3, 2.0])
def test_clip_grad_value_matches_torch(clip):
    ours, theirs = _params(loom), _params(torch)
    assert utils.clip_grad_value_(ours, clip) is None
    torch.nn.utils.clip_grad_value_(theirs, clip)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(_np(a.grad), _np(b.grad))
    assert max(np.abs(_np(a.grad)).max() for a in ours) <= clip


def test_parameters_to_vector_and_back():
    ours = [loom.tensor(RNG.standard_normal(s), dtype=loom.float32, requires_grad=True) for s in SHAPES]
    theirs = [torch.tensor(_np(p)).requires_grad_() for p in ours]
    v1, v2 = utils.parameters_to_vector(ours), torch.nn.utils.parameters_to_vector(theirs)
    assert tuple(v1.shape) == (18,)
    np.testing.assert_array_equal(_np(v1), _np(v2))
    (v1 * loom.arange(18.0)).sum().backward()   # differentiable, as torch's
    np.testing.assert_array_equal(_np(ours[0].grad), np.arange(12.0).reshape(3, 4))
    new = np.arange(18.0, dtype=np.float32)
    utils.vector_to_parameters(loom.tensor(new), ours)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(_np(a), _np(b))
        assert a.requires_grad


def test_vector_to_parameters_errors():
    ps = [loom.zeros(3), loom.zeros(2)]
    with pytest.raises(TypeError, match="expected loom.Tensor"):
        utils.vector_to_parameters([1.0] * 5, ps)
    with pytest.raises(ValueError, match="vec has 4 elements, but the parameters have 5"):
        utils.vector_to_parameters(loom.zeros(4), ps)
    with pytest.raises(ValueError, match="1-d"):
        utils.vector_to_parameters(loom.zeros(5, 1), ps)
    with pytest.raises(TypeError, match="parameters_to_vector"):
        utils.parameters_to_vector([ps[0], "x"])
