"""autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks: every tensor a
node saves goes through pack_hook, backward gets it back through unpack_hook, PyTorch's errors."""
import pytest

import loom
from loom import nn
from loom.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks


def _mlp():
    loom.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))


def _saved_in_graph(root):
    """The saved tensors the nodes of root's graph hold, as stored (packed or plain)."""
    seen, stack, found = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for f in getattr(type(node), "saved_fields", ()):
            v = getattr(node, f, None)
            if v is not None:
                found.append(v)
        stack.extend(n for n, _ in node.next_functions)
    return found


def _grads(model, x, y, hooks=None):
    model.zero_grad()
    if hooks:
        with saved_tensors_hooks(*hooks):
            loss = nn.functional.mse_loss(model(x), y)
    else:
        loss = nn.functional.mse_loss(model(x), y)
    saved = _saved_in_graph(loss.grad_fn)
    loss.backward()
    return [p.grad.clone() for p in model.parameters()], saved


def test_hooks_see_every_saved_tensor_of_an_mlp_and_gradients_match():
    model = _mlp()
    x, y = loom.randn(5, 4), loom.randn(5, 3)
    packed, unpacked = [], []

    def pack(t):
        packed.append((tuple(t.shape), t.dtype))
        return ("box", t)

    def unpack(p):
        assert p[0] == "box"
        unpacked.append(p[1])
        return p[1]

    plain, saved_plain = _grads(model, x, y)
    hooked, saved_hooked = _grads(model, x, y, (pack, unpack))
    assert len(saved_plain) == len(saved_hooked) >= 5   # inputs, weights, tanh's result, the loss's operands
    assert all(len(s) == 2 for s in saved_plain)                   # (tensor, version): no hooks outside the context
    assert all(len(s) == 3 and s[0][0] == "box" for s in saved_hooked)   # every one of them went through pack
    assert len(packed) == len(saved_hooked)
    assert len(unpacked) == len(packed)
    assert (5, 4) in [s for s, _ in packed] and (8, 4) in [s for s, _ in packed]
    for a, b in zip(plain, hooked):
        assert loom.equal(a, b)


def test_nested_contexts_innermost_wins_and_outer_resumes():
    calls = []
    x = loom.randn(3, requires_grad=True)
    with saved_tensors_hooks(lambda t: calls.append("outer") or t, lambda t: t):
        with saved_tensors_hooks(lambda t: calls.append("inner") or t, lambda t: t):
            a = x.exp()
        b = a.sin()
    c = b.cos()
    assert calls == ["inner", "outer"]
    c.sum().backward()
    assert loom.testing.assert_close(x.grad, -(x.exp().sin().sin()) * x.exp().cos() * x.exp()) is None


def test_unpack_may_return_a_different_tensor():
    x = loom.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t * 0 + 10):
        y = x * x
    y.sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]    # grad * other with other unpacked as 10


def test_function_save_for_backward_goes_through_the_hooks():
    class Square(loom.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 2 * a * g
    seen = []
    x = loom.tensor([3.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: seen.append("pack") or t, lambda t: seen.append("unpack") or t):
        y = Square.apply(x)
    y.backward()
    assert seen == ["pack", "unpack"] and x.grad.tolist() == [6.0]


def test_errors_are_pytorchs():
    x = loom.ones(3, requires_grad=True)
    with saved_tensors_hooks(lambda t: t.add_(1), lambda t: t):
        with pytest.raises(RuntimeError, match="^A saved tensor pack hook is modifying its input in place. Tensors "
                                               "provided as input to pack hook cannot be modified"):
            (x * 2).exp()
    with saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = (x * 2).exp()
    with pytest.raises(TypeError, match="^Output of saved tensor unpack_hook expected to be a Tensor but got "
                                        "result of type int$"):
        y.sum().backward()
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="^no hooks here$"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):   # enabled again after the block
        pass


def test_save_on_cpu_keeps_gradients():
    model = _mlp()
    x, y = loom.randn(5, 4), loom.randn(5, 3)
    plain, _ = _grads(model, x, y)
    model.zero_grad()
    with save_on_cpu():
        loss = nn.functional.mse_loss(model(x), y)
    saved = _saved_in_graph(loss.grad_fn)
    assert saved and all(len(s) == 3 and s[0][0].type == "cpu" for s in saved)
    loss.backward()
    for a, p in zip(plain, model.parameters()):
        assert loom.equal(a, p.grad)
