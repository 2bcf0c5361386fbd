"""The autograd engine and API, behaviour by behaviour."""
import threading

import numpy as np
import pytest

import loom


def leaf(*values):
    return loom.tensor(list(values), dtype=loom.float64, requires_grad=True)


def test_leaf_and_graph_attributes():
    x = leaf(1.0, 2.0)
    y = x * 2
    assert x.is_leaf and x.requires_grad and x.grad_fn is None and x.grad is None
    assert not y.is_leaf and y.requires_grad and y.grad_fn.name() == "MulBackwardTensor"
    assert "grad_fn=<MulBackwardTensor>" in repr(y) and "requires_grad=True" in repr(x)
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.data_ptr() == y.data_ptr()
    assert not loom.ones(2).requires_grad


def test_gradients_accumulate_into_leaves():
    x = leaf(1.0, 2.0)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0])
    x.grad = None
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_broadcast_gradients_are_reduced_to_the_input_shape():
    a = loom.ones(3, 1, dtype=loom.float64, requires_grad=True)
    b = loom.ones(4, dtype=loom.float64, requires_grad=True)
    c = loom.tensor(2.0, dtype=loom.float64, requires_grad=True)
    ((a + b) * c).sum().backward()
    assert a.grad.shape == (3, 1) and b.grad.shape == (4,) and c.grad.shape == ()
    np.testing.assert_allclose(a.grad.numpy(), np.full((3, 1), 8.0))
    np.testing.assert_allclose(b.grad.numpy(), np.full(4, 6.0))
    assert c.grad.item() == 24.0


def test_second_backward_needs_retain_graph():
    x = leaf(1.0)
    y = (x.exp() * 2).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    assert x.grad.item() == pytest.approx(4 * np.e)


def test_backward_needs_a_scalar_or_a_gradient():
    x = leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        (x * 2).backward()
    (x * 2).backward(loom.tensor([1.0, 10.0], dtype=loom.float64))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 20.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        loom.ones(2).sum().backward()


def test_modified_saved_tensor_is_detected():
    x = leaf(1.0, 2.0)
    h = x * 2
    z = (h * h).sum()
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_inplace_rules():
    x = leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.fill_(0)
    h = x * 3
    h.add_(1)
    h.mul_(x)          # the product rule sees h's value before this mul_
    h += 2
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3 * 1 + (3 * 1 + 1), 3 * 2 + (3 * 2 + 1)])
    with loom.no_grad():
        x.add_(1)      # allowed outside grad mode, as in PyTorch
    assert x.tolist() == [2.0, 3.0]


def test_out_with_grad_is_refused():
    x = leaf(1.0)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        loom.add(x, 1, out=loom.empty(1, dtype=loom.float64))


def test_grad_modes():
    x = leaf(1.0)
    with loom.no_grad():
        assert not (x * 2).requires_grad
        with loom.enable_grad():
            assert (x * 2).requires_grad
    assert (x * 2).requires_grad

    @loom.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad
    loom.set_grad_enabled(False)
    assert not (x * 2).requires_grad and not loom.is_grad_enabled()
    loom.set_grad_enabled(True)
    with loom.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad


def test_grad_mode_is_per_thread():
    """A thread inside no_grad (an evaluation or loader thread) leaves another
    thread recording, and every new thread starts with grad enabled, as in PyTorch."""
    x = leaf(1.0)
    inside, release, seen = threading.Event(), threading.Event(), {}

    def worker():
        seen["starts_enabled"] = loom.is_grad_enabled()
        with loom.no_grad():
            inside.set()
            release.wait(10)
            seen["records"] = (x * 2).requires_grad
    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(10)
    assert loom.is_grad_enabled() and (x * 2).requires_grad   # while the worker is inside no_grad
    (x * x).sum().backward()                                   # and backward restores this thread's mode only
    release.set()
    t.join()
    assert seen == {"starts_enabled": True, "records": False} and x.grad.item() == 2.0
    with loom.no_grad():
        t = threading.Thread(target=lambda: seen.update(new=(x * 2).requires_grad))
        t.start()
        t.join()
    assert seen["new"] is True


def test_autograd_grad():
    x, y = leaf(2.0), leaf(3.0)
    gx, gy = loom.autograd.grad((x * y).sum(), [x, y])
    assert gx.item() == 3.0 and gy.item() == 2.0 and x.grad is None
    z = leaf(1.0)
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        loom.autograd.grad((x * 2).sum(), [x, z])
    gx, gz = loom.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    assert gx.item() == 2.0 and gz is None
    h = x * x
    (gh,) = loom.autograd.grad((h * 3).sum(), [h])   # a non-leaf input
    assert gh.item() == 3.0


def test_higher_order():
    x = leaf(2.0)
    y = (x ** 3).sum() if False else (x * x * x).sum()
    (g,) = loom.autograd.grad(y, [x], create_graph=True)
    (g2,) = loom.autograd.grad(g.sum(), [x], create_graph=True)
    (g3,) = loom.autograd.grad(g2.sum(), [x])
    assert (g.item(), g2.item(), g3.item()) == (12.0, 12.0, 6.0)


def test_hooks_and_retain_grad():
    x = leaf(1.0, 2.0)
    h = x * 2
    h.retain_grad()
    seen = []
    handle = h.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    (h * h).sum().backward()
    assert seen == [[4.0, 8.0]]
    np.testing.assert_allclose(h.grad.numpy(), [40.0, 80.0])
    np.testing.assert_allclose(x.grad.numpy(), [80.0, 160.0])
    handle.remove()
    x.grad = None
    (x * 2).sum().backward()
    x.register_hook(lambda g: g * 0)
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_requires_grad_rules():
    with pytest.raises(RuntimeError, match="floating point"):
        loom.arange(3).requires_grad_()
    x = leaf(1.0)
    with pytest.raises(RuntimeError, match="leaf variables"):
        (x * 2).requires_grad_(False)
    z = loom.zeros(2, requires_grad=True)
    assert z.requires_grad and z.is_leaf
    z.requires_grad = False
    assert not (z * 2).requires_grad


def test_views_are_differentiable():
    x = loom.arange(6.0, dtype=loom.float64).reshape(2, 3).requires_grad_()
    (x.t()[1:, :].reshape(4) * loom.arange(4.0, dtype=loom.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0, 2], [0, 1, 3]])


def test_mlp_gradients_match_numpy():
    rng = np.random.default_rng(0)
    xs, w1, w2 = rng.standard_normal((5, 4)), rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    X = loom.tensor(xs)
    W1, W2 = loom.tensor(w1, requires_grad=True), loom.tensor(w2, requires_grad=True)
    loss = ((X @ W1).tanh() @ W2).sigmoid().mean()
    loss.backward()
    h = np.tanh(xs @ w1)
    s = 1 / (1 + np.exp(-(h @ w2)))
    ds = s * (1 - s) / s.size
    np.testing.assert_allclose(W2.grad.numpy(), h.T @ ds, rtol=1e-10)
    np.testing.assert_allclose(W1.grad.numpy(), xs.T @ ((ds @ w2.T) * (1 - h * h)), rtol=1e-10)


def test_matches_pytorch_when_installed():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    la, lb = loom.tensor(a, requires_grad=True), loom.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    for lib, x, y in ((loom, la, lb), (torch, ta, tb)):
        out = (lib.maximum(x * y, y).exp() / (1 + x.abs())).sum(1).amax() + lib.clamp(x, min=-0.5).mean()
        out.backward()
    np.testing.assert_allclose(la.grad.numpy(), ta.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(lb.grad.numpy(), tb.grad.numpy(), rtol=1e-10)


def test_indexing_is_differentiable():
    x = loom.arange(6.0, dtype=loom.float64).reshape(2, 3).requires_grad_()
    (x[1, ::2] * loom.tensor([2.0, 3.0], dtype=loom.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0, 0], [2, 0, 3]])
    assert loom.autograd.gradcheck(lambda t: t[:, 1:] * t[:, :-1], (x,))


def test_setitem_is_differentiable():
    x, v = leaf(1.0, 2.0, 3.0), leaf(10.0)
    y = x * 2
    y[1] = v * 3
    (y * loom.tensor([1.0, 5.0, 7.0], dtype=loom.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.0, 14.0])
    assert v.grad.item() == 15.0
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x[0] = 1.0


class MyExp(loom.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        y = x.exp() * scale
        ctx.save_for_backward(y)
        ctx.seen = ctx.needs_input_grad
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y, None


def test_custom_function():
    x = leaf(0.5, 1.0)
    y = MyExp.apply(x, 3.0)
    assert y.grad_fn.name() == "MyExpBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp([0.5, 1.0]))
    assert loom.autograd.gradcheck(lambda t: MyExp.apply(t, 2.0), (leaf(0.1, 0.2),))
    with pytest.raises(RuntimeError, match="second time"):
        y.sum().backward()
    assert not MyExp.apply(loom.ones(2, dtype=loom.float64), 1.0).requires_grad


def test_functional_api_matches_closed_forms():
    F = loom.autograd.functional
    x = loom.tensor([0.3, -0.2, 0.5], dtype=loom.float64)
    A = loom.tensor(np.arange(6.0).reshape(2, 3))
    f = lambda t: (A @ t).tanh()
    out, vjp = F.vjp(f, x, loom.tensor([1.0, 2.0], dtype=loom.float64))
    J = (1 - np.tanh(A.numpy() @ x.numpy()) ** 2)[:, None] * A.numpy()
    np.testing.assert_allclose(vjp.numpy(), np.array([1.0, 2.0]) @ J, rtol=1e-10)
    _, jv = F.jvp(f, x, loom.tensor([1.0, 0.0, -1.0], dtype=loom.float64))
    np.testing.assert_allclose(jv.numpy(), J @ np.array([1.0, 0.0, -1.0]), rtol=1e-10)
    np.testing.assert_allclose(F.jacobian(f, x).numpy(), J, rtol=1e-10)
    H = F.hessian(lambda t: (t * t * t).sum(), x)
    np.testing.assert_allclose(H.numpy(), np.diag(6 * x.numpy()), rtol=1e-10)
    assert not x.requires_grad   # the caller's tensors are left alone


def test_forward_ad_api():
    from loom.autograd import forward_ad as fw
    x = leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match="dual_level"):
        fw.make_dual(x, x)
    with fw.dual_level():
        d = fw.make_dual(x, loom.tensor([1.0, 0.0], dtype=loom.float64))
        y = d.sin() * 3
        p, t = fw.unpack_dual(y)
        np.testing.assert_allclose(t.numpy(), [3 * np.cos(1.0), 0.0])
        assert fw.unpack_dual(p).tangent is None
        with pytest.raises(ValueError, match="tangent of shape"):
            fw.make_dual(x, loom.ones(3, dtype=loom.float64))
        y.sum().backward()            # the backward graph still runs through duals
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.cos([1.0, 2.0]))
    assert fw.unpack_dual(y).tangent is None   # tangents end with the level


_VIEW_WRITES = {
    "slice mul_": lambda x: _then((x * 2)[1:3].mul_(x[0]), lambda y: (y * y).sum(), base=True),
    "augmented assignment": lambda x: _aug(x),
    "view of a view": lambda x: _then((x * 2).view(2, 2)[0].mul_(x[3]), lambda y: (y ** 2).sum(), base=True),
    "narrow zero_ (a kernel in-place op)": lambda x: _then((x * 3).narrow(0, 1, 2).zero_(), lambda y: (y * x).sum(),
                                                          base=True),
    "setitem on a view": lambda x: _setitem(x),
}


def _then(view, loss, base):
    """loss of the written view's base (reached through the view's history)"""
    return loss(view._ag.view_base if base else view)


def _aug(x):
    y = x.reshape(2, 2) * 1
    y[:, 0] += x[:2]
    return (y * y).sum()


def _setitem(x):
    y = x * 1
    v = y[1:]
    v[0] = x[0] * 5
    return (y * v.sum()).sum()


@pytest.mark.parametrize("case", list(_VIEW_WRITES))
def test_inplace_writes_to_views_rebase_the_base(case):
    """Writing into a view of a tensor in the graph rebases the base's history (PyTorch's
    CopySlices): checked against finite differences."""
    x = loom.tensor([1.0, 2.0, 3.0, 4.0], dtype=loom.float64, requires_grad=True)
    assert loom.autograd.gradcheck(_VIEW_WRITES[case], (x,))
    assert loom.autograd.gradgradcheck(_VIEW_WRITES[case], (x,))


def test_inplace_on_a_view_of_a_leaf_is_refused_and_stale_saves_are_caught():
    x = leaf(1.0, 2.0, 3.0)
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        x[0:2].mul_(3)
    y = x.exp()                   # exp saves its result: writing a view of it invalidates that
    y[0:2].mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    y = x * 2
    y[0:2] = y[0:2] * 3           # writing through the base
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0, 2.0])
