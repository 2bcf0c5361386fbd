"""nn.Module.register_full_backward_hook / register_full_backward_pre_hook, against PyTorch: what the
hooks see, replacing grad_input and grad_output, modules whose inputs need no grad, removal; and
forward_ad's nested dual_level refused with PyTorch's error."""
import numpy as np
import pytest
import torch

import loom
from loom import nn


def _pair():
    loom.manual_seed(0)
    ours = nn.Linear(3, 2)
    theirs = torch.nn.Linear(3, 2)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(ours.weight.detach().numpy()))
        theirs.bias.copy_(torch.tensor(ours.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    return ours, theirs, x


def _as_np(gs):
    return [None if g is None else np.asarray(g.detach().numpy()) for g in gs]


def _run(module, lib, x, requires_grad=True, scale_input=None, scale_output=None):
    seen = []

    def pre(m, grad_output):
        seen.append(("pre", _as_np(grad_output)))
        return None if scale_output is None else tuple(g * scale_output for g in grad_output)

    def hook(m, grad_input, grad_output):
        assert m is module
        seen.append(("hook", _as_np(grad_input), _as_np(grad_output)))
        return None if scale_input is None else tuple(None if g is None else g * scale_input for g in grad_input)
    h1 = module.register_full_backward_pre_hook(pre)
    h2 = module.register_full_backward_hook(hook)
    xt = lib.tensor(x, requires_grad=requires_grad)
    out = module(xt)
    (out * out).sum().backward()
    h1.remove()
    h2.remove()
    return seen, None if xt.grad is None else xt.grad.numpy(), module.weight.grad.numpy()


@pytest.mark.parametrize("kw", [{}, {"scale_input": 3.0}, {"scale_output": 0.5}, {"requires_grad": False}])
def test_hooks_match_pytorch(kw):
    ours, theirs, x = _pair()
    s1, gx1, gw1 = _run(ours, loom, x, **kw)
    s2, gx2, gw2 = _run(theirs, torch, x, **kw)
    assert [s[0] for s in s1] == [s[0] for s in s2] == ["pre", "hook"]
    for a, b in zip(s1, s2):
        for ga, gb in zip(a[1:], b[1:]):
            assert len(ga) == len(gb)
            for u, v in zip(ga, gb):
                assert (u is None) == (v is None)
                if u is not None:
                    np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)
    assert (gx1 is None) == (gx2 is None)
    if gx1 is not None:
        np.testing.assert_allclose(gx1, gx2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw1, gw2, rtol=1e-5, atol=1e-6)


def test_removed_hooks_do_not_run_and_wrong_counts_are_refused():
    m = nn.Linear(2, 2)
    calls = []
    h = m.register_full_backward_hook(lambda *a: calls.append(1))
    h.remove()
    m(loom.ones(1, 2, requires_grad=True)).sum().backward()
    assert calls == []
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of grad_input, got 2, but "
                                           "expected 1"):
        m(loom.ones(1, 2, requires_grad=True)).sum().backward()


def test_no_input_requires_grad_hook_may_not_return_gradients():
    m = nn.Linear(2, 2)
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, tuple(g.shape for g in go))))
    m(loom.ones(1, 2)).sum().backward()
    assert seen == [((None,), ((1, 2),))]
    m2 = nn.Linear(2, 2)
    m2.register_full_backward_hook(lambda mod, gi, go: (loom.ones(1, 2),))
    with pytest.raises(RuntimeError, match="no input requires gradient should always return None"):
        m2(loom.ones(1, 2)).sum().backward()


def test_nested_dual_level_is_refused_as_in_pytorch():
    fwad = loom.autograd.forward_ad
    with fwad.dual_level():
        with pytest.raises(RuntimeError) as ours:
            with fwad.dual_level():
                pass
        x = fwad.make_dual(loom.ones(2), loom.ones(2) * 3)   # the outer level still works
        assert fwad.unpack_dual(x * 2).tangent.tolist() == [6.0, 6.0]
    with torch.autograd.forward_ad.dual_level():
        with pytest.raises(RuntimeError) as theirs:
            with torch.autograd.forward_ad.dual_level():
                pass
    assert str(ours.value) == str(theirs.value)
