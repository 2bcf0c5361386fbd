"""loom.utils.checkpoint and the generator state it replays (loom.get_rng_state/set_rng_state)."""
import numpy as np
import pytest

import loom
from loom.utils.checkpoint import checkpoint, checkpoint_sequential


def test_rng_state_round_trip():
    s = loom.get_rng_state()
    assert s.dtype == loom.uint8 and s.shape == (40,)
    a = loom.rand(5)
    loom.set_rng_state(s)
    np.testing.assert_array_equal(loom.rand(5).numpy(), a.numpy())
    with pytest.raises(TypeError, match="expected the uint8 tensor of 40 bytes"):
        loom.set_rng_state(loom.zeros(40))
    with pytest.raises(ValueError, match="not a loom random generator state"):
        loom.set_rng_state(loom.zeros(40, dtype=loom.uint8))


def _model():
    loom.manual_seed(1)
    return loom.nn.Sequential(loom.nn.Linear(4, 8), loom.nn.Dropout(0.5), loom.nn.Tanh(), loom.nn.Linear(8, 3),
                              loom.nn.ReLU(), loom.nn.Linear(3, 2))


@pytest.mark.parametrize("how", ["checkpoint", "sequential"])
def test_checkpoint_gives_the_plain_gradients(how):
    m = _model()
    x = loom.randn(5, 4, requires_grad=True)
    state = loom.get_rng_state()
    m(x).square().sum().backward()
    want = [p.grad.clone() for p in m.parameters()] + [x.grad.clone()]
    m.zero_grad()
    x.grad = None
    loom.set_rng_state(state)   # dropout draws the same mask in both runs
    y = checkpoint(m, x) if how == "checkpoint" else checkpoint_sequential(m, 2, x)
    y.square().sum().backward()
    for w, g in zip(want, [p.grad for p in m.parameters()] + [x.grad]):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-7)


def test_checkpoint_keeps_no_graph_inside_and_takes_kwargs():
    lin = loom.nn.Linear(3, 3)
    x = loom.randn(2, 3, requires_grad=True)
    y = checkpoint(lambda a, scale: lin(a) * scale, x, scale=2.0)
    assert y.requires_grad and y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (2.0 * lin.weight.sum(0)).detach().numpy().repeat(2).reshape(3, 2).T,
                               rtol=1e-6)
    with loom.no_grad():
        assert not checkpoint(lin, x).requires_grad
