"""Building the graph as ops run: edges to inputs and attaching a node to
outputs (both in C, loom._autograd), and the in-place rules. Called only on the generated slow path (an input that
is not a plain Tensor), so ops on plain tensors never get here."""
from .. import _ops   # generated; it imports this module, so its names are read at call time
from .._autograd import attach, edge, make_node  # noqa: F401  (C: the per-op hot path)
from .._tensor import GradTensor, Tensor
from .grad_mode import grad_enabled, no_grad
from .node import Node
from .saved_hooks import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks  # noqa: F401  (graph's API)


def needs_grad(*xs):
    for x in xs:
        meta = getattr(x, "_ag", None)
        if meta is not None and meta.requires_grad:
            return True
        if isinstance(x, (list, tuple)) and needs_grad(*x):
            return True
    return False


def check_no_requires_grad(x, op, arg):
    """An input the op cannot differentiate (derivatives.yaml's `not_implemented`; a loss's class
    weights) is refused while it requires grad, as PyTorch does, instead of getting no gradient or
    a partial one; under no_grad it is fine."""
    if grad_enabled() and needs_grad(x):
        raise RuntimeError(f"{op}(): not differentiable with respect to argument '{arg}'. "
                           f"This input cannot have requires_grad True.")


def check_inplace(self, op):
    """Refuse an in-place write autograd cannot follow; return self's metadata when self is a
    view (the caller then rebases the view's base), else None."""
    meta = getattr(self, "_ag", None)
    if meta is None or not grad_enabled():
        return None
    if meta.requires_grad and meta.grad_fn is None:
        raise RuntimeError(f"{op}(): a leaf Variable that requires grad is being used in an in-place operation.")
    base = meta.view_base
    if base is None:
        return None
    if base._ag.requires_grad and base._ag.grad_fn is None:
        raise RuntimeError(f"{op}(): a view of a leaf Variable that requires grad is being used in an in-place "
                           f"operation.")
    return meta


def mark_view(view, base, fn):
    """Record that `view` (just recorded) aliases `base`, and `fn(t)` re-takes the view of any
    tensor shaped like base. A view of a view points at the root base, the two fns composed.
    An op that could not alias (reshape or flatten that copied) leaves no mark."""
    if view._h.storage != base._h.storage:
        return
    meta, parent = view._ag, getattr(base, "_ag", None)
    if parent is not None and parent.view_base is not None:
        root, first = parent.view_base, parent.view_fn
        meta.view_base, meta.view_fn = root, (lambda t: fn(first(t)))
    else:
        meta.view_base, meta.view_fn = base, fn
    meta.is_view = True


class ViewWriteBackward(Node):
    """A view of base was written in place (PyTorch's CopySlices): base's new value is its old one
    outside the view and `value` inside. The gradient inside the view goes to value, the rest to
    the old base."""
    __slots__ = ("view_fn",)

    def backward(self, grads):
        g = grads[0].contiguous()   # view_fn's ops (view, narrow, ...) all apply to a dense tensor
        e = self.next_edges
        g_value = self.view_fn(g) if e[1] is not None else None
        g_base = None
        if e[0] is not None:
            with no_grad():
                keep = _ops.ones_like(g)
                self.view_fn(keep).fill_(0)
            g_base = g * keep
        return [g_base, g_value]


def rebase_view(view, meta, carrier):
    """After an in-place write to `view` (whose autograd metadata was `meta`), give the view's base
    a history through the write, and the view a history through its base: `carrier` holds the
    written values' history."""
    base, fn = meta.view_base, meta.view_fn
    node = make_node(ViewWriteBackward, (base, carrier), base, True)
    if node is not None:
        node.view_fn = fn
    fresh = fn(base)   # re-taken under grad mode: a view of the base's new history
    if view.__class__ is Tensor:
        view.__class__ = GradTensor
    view._ag = fresh._ag


def inplace_via_outplace(self, compute, op):
    """self.op_(...) when autograd is involved: compute out of place on a copy
    of self (recorded), write the values back, and give self the new history
    (a view's base gets it too). Nodes that saved self see its version change
    and refuse to run."""
    check_inplace(self, op)
    meta = getattr(self, "_ag", None)
    r = compute(self.clone())
    with no_grad():
        self.copy_(r)
    if meta is not None and meta.view_base is not None and isinstance(r, GradTensor):
        rebase_view(self, meta, r)
    elif isinstance(r, GradTensor):
        if self.__class__ is Tensor:
            self.__class__ = GradTensor
        self._ag = r._ag
    return self


def out_with_grad(op):
    raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, "
                       f"but one of the arguments requires grad.")
