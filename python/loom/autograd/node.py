"""Graph nodes: a generated backward node per differentiable op, plus leaves.
The per-op state (edges, broadcast shapes, hooks) lives in the C base class."""
from .._autograd import AutogradMeta, NodeBase  # noqa: F401  (AutogradMeta is re-exported)


class Node(NodeBase):
    """A backward function. Generated subclasses define `backward(grads)`
    returning one gradient per input edge (None where not needed)."""
    __slots__ = ()
    saved_fields = ()    # generated nodes name the slots that hold saved tensors
    n_outputs = 1

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{self.name()}>"

    def release(self):
        self._released = True
        for f in self.saved_fields:
            setattr(self, f, None)

    def unpack(self, saved):
        """A saved tensor, checked against in-place changes since it was saved."""
        if self._released:   # checked first: unpack(None) is how callers ask for this error
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward.")
        if saved is None:
            return None
        tensor, version = saved
        if version is not None and tensor._h.storage.version != version:
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{tensor.dtype.name} {list(tensor.shape)}] is at version {tensor._h.storage.version}; expected "
                f"version {version} instead. Hint: the backward of {self.name()} needs it unchanged.")
        return tensor

    @property
    def next_functions(self):
        return tuple((e[0], e[1]) if e else (None, 0) for e in self.next_edges)


class AccumulateGrad(Node):
    """The sink for a leaf tensor's gradient."""
    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable


def save(t):
    """Remember a tensor and its storage version; numbers and None pass through."""
    if t is None:
        return None
    h = getattr(t, "_h", None)
    return (t, None) if h is None else (t, h.storage.version)


