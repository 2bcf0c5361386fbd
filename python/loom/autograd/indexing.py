"""Autograd for basic indexing, which is hand-written Python rather than an
ops.yaml op: x[key] scatters its gradient back into zeros of x's shape;
x[key] = v routes the gradient at key to v and zero to x's old value."""
from .. import _ops   # generated; it imports this module, so its names are read at call time
from .graph import attach, check_inplace, make_node, mark_view, rebase_view
from .._autograd import grad_enabled
from .grad_mode import no_grad
from .node import Node


class IndexBackward(Node):
    __slots__ = ("key", "shape", "dtype")

    def backward(node, grads):
        z = _ops.zeros(node.shape, dtype=node.dtype, device=grads[0].device)
        z[node.key] = grads[0]
        return [z]


class IndexPutBackward(Node):
    __slots__ = ("key",)

    def backward(node, grads):
        g = grads[0]
        e = node.next_edges
        gv = g[node.key] if e[1] is not None else None
        if e[0] is not None:
            g = g.clone()
            g[node.key] = 0.0
        return [g if e[0] is not None else None, gv]


def record_getitem(t, key, result):
    node = make_node(IndexBackward, (t,), result)
    if node is None:
        return result
    node.key, node.shape, node.dtype = key, tuple(t.shape), t.dtype
    attach(result, node)
    mark_view(result, t, lambda b: b[key])
    return result


def setitem_with_grad(t, key, value, write):
    """Write value into t[key] (via `write`) and give t the history of the write."""
    check_inplace(t, "__setitem__")
    meta = getattr(t, "_ag", None)
    node = make_node(IndexPutBackward, (t, value), t)
    with no_grad():
        write()
    if node is not None:
        node.key = key
        attach(t, node)
        if meta is not None and meta.view_base is not None:   # t is a view: its base was written too
            rebase_view(t, meta, t)


def enabled():
    return grad_enabled()
