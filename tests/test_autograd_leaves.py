"""How gradients land in leaves (the C engine's accumulate step) and how the
C recording functions treat bad input."""
import numpy as np
import pytest

import loom
from loom import _autograd
from loom.autograd.node import Node


def test_a_shared_gradient_is_not_aliased_between_leaves():
    a = loom.tensor([1.0, 2.0], requires_grad=True)
    b = loom.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()      # add's backward hands the same tensor to both inputs
    assert a.grad.data_ptr() != b.grad.data_ptr()
    a.grad.add_(1.0)
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])


def test_an_expanded_gradient_becomes_a_dense_writable_grad():
    a = loom.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    a.sum().backward()            # sum's backward is an expand (stride 0)
    assert a.grad.is_contiguous()
    a.grad.mul_(2.0)
    np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 2), 2.0))


def test_a_user_gradient_is_copied_not_kept():
    a = loom.tensor([1.0, 2.0], requires_grad=True)
    g = loom.tensor([5.0, 6.0])
    a.backward(g)
    assert a.grad.data_ptr() != g.data_ptr()
    g.zero_()
    np.testing.assert_array_equal(a.grad.numpy(), [5.0, 6.0])


def test_later_gradients_add_in_place_into_grad():
    a = loom.tensor([1.0, 2.0], requires_grad=True)
    (a * 3).sum().backward()
    first = a.grad
    (a * a).sum().backward()
    assert a.grad is first        # accumulated in place, as PyTorch does outside create_graph
    np.testing.assert_array_equal(a.grad.numpy(), [5.0, 7.0])


def test_create_graph_accumulation_keeps_the_graph():
    a = loom.tensor([2.0], requires_grad=True)
    (a * a * a).sum().backward(create_graph=True)
    assert a.grad.requires_grad
    g2, = loom.autograd.grad(a.grad.sum(), a)
    np.testing.assert_allclose(g2.numpy(), [12.0])


def test_make_node_refuses_a_class_that_is_not_a_node():
    a = loom.tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="Node subclass"):
        _autograd.make_node(int, (a,), a.detach())
    with pytest.raises(TypeError, match="make_node"):
        _autograd.make_node(Node, (a,))


def test_a_node_returning_too_few_gradients_is_a_clear_error():
    class Short(Node):
        __slots__ = ()

        def backward(self, grads):
            return []

    a = loom.tensor([1.0], requires_grad=True)
    out = loom.tensor([1.0])
    node = _autograd.make_node(Short, (a,), out, True)
    with pytest.raises(RuntimeError, match="Short.backward returned 0 gradients for 1 inputs"):
        out.backward()
    assert loom.is_grad_enabled()   # the engine restores grad mode after a failure


def test_attach_refuses_a_non_tensor():
    with pytest.raises(TypeError, match="not a loom Tensor"):
        _autograd.attach(3.0, Node())


# ---------------------------------------------------------------- what nodes keep
def test_a_node_keeps_only_the_metadata_its_formula_reads():
    """sum's backward reads self.shape only: the node keeps the shape, not the tensor (as PyTorch
    keeps sym_sizes), so the input can be freed and written in place before backward."""
    import weakref
    x = loom.ones(2, 3, requires_grad=True)
    h = x * 2
    probe = weakref.ref(h)
    y = h.sum()
    h.add_(1.0)          # would break a saved tensor's version check
    del h
    assert probe() is None
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))


def test_saved_metadata_answers_like_the_tensor():
    t = loom.zeros(4, 5, dtype=loom.float64)
    m = _autograd.save_meta(t)
    assert m.shape == t.shape and isinstance(m.shape, loom.Size)
    assert m.dtype is loom.float64 and m.ndim == 2 and m.device == t.device


def test_log_softmax_backward_keeps_the_input_dtype_without_the_input():
    x = loom.tensor([[1.0, 2.0, 3.0]], dtype=loom.float64, requires_grad=True)
    loom.log_softmax(x, 1)[0, 0].backward()
    assert x.grad.dtype is loom.float64
    p = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()
    np.testing.assert_allclose(x.grad.numpy()[0], np.eye(3)[0] - p)


# ---------------------------------------------------------------- the C module refuses bad input
def test_the_engine_refuses_malformed_graphs_without_crashing():
    from loom import _autograd as engine   # the loop itself: run(roots, retain_graph, create_graph)
    g = loom.ones(1)
    with pytest.raises(AttributeError):
        engine.run([(object(), 0, g)], False, False)
    node = Node()
    with pytest.raises(RuntimeError, match="output the node does not have"):
        engine.run([(node, 3, g)], False, False)
    node.next_edges = 5
    with pytest.raises(TypeError, match="next_edges"):
        engine.run([(node, 0, g)], False, False)
    node.next_edges = ((1, 2, 3),)
    with pytest.raises(TypeError, match="edge"):
        engine.run([(node, 0, g)], False, False)
    with pytest.raises(TypeError):
        engine.run([(node, 0)], False, False)
    assert loom.is_grad_enabled()


def test_a_tensor_with_a_foreign_handle_is_dropped_without_crashing(monkeypatch):
    import sys
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_type))
    t = loom._autograd.TensorBase.__new__(loom.Tensor)   # the C base's: no handle yet
    with pytest.raises(AttributeError):
        t.shape
    t._h = 5                      # not a handle: its release fails as an unraisable error, not a crash
    del t
    assert seen == [TypeError]
    m = loom.autograd.node.AutogradMeta(True, grad_fn=5)
    x = loom.ones(1)
    x.__class__ = loom._tensor.GradTensor
    x._ag = m
    with pytest.raises(TypeError, match="not a Node"):
        (x * 2).sum().backward()
