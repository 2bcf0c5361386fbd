"""Graph nodes: a generated backward node per differentiable op, plus leaves.
The per-op state (edges, broadcast shapes, hooks) lives in the C base class."""
from .._autograd import AutogradMeta, NodeBase, save, save_meta  # noqa: F401  (re-exported)


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

    # release() and unpack(saved) are C methods of NodeBase

    def _modified(self, tensor, version):
        raise RuntimeError(
            f"one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[{tensor.dtype.name} {list(tensor.shape)}] is at version {tensor._h.storage.version}; expected "
            f"version {version} instead. Hint: the backward of {self.name()} needs it unchanged.")

    @property
    def next_functions(self):
        return tuple((e[0], e[1]) if e else (None, 0) for e in self.next_edges)


class AccumulateGrad(Node):
    """The sink for a leaf tensor's gradient."""
    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
