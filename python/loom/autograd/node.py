"""Graph nodes: a generated backward node per differentiable op, plus leaves."""


class AutogradMeta:
    """What a tensor that takes part in autograd carries (Tensor._ag)."""
    __slots__ = ("requires_grad", "grad", "grad_fn", "output_nr", "retains_grad", "hooks", "accumulator", "fw_grad",
                 "is_view")

    def __init__(self, requires_grad=False, grad_fn=None, output_nr=0):
        self.requires_grad = requires_grad
        self.grad_fn = grad_fn
        self.output_nr = output_nr
        self.grad = self.hooks = self.accumulator = self.fw_grad = None   # fw_grad: forward-mode tangent
        self.retains_grad = self.is_view = False


class Node:
    """A backward function. Generated subclasses define `backward(grads)`
    returning one gradient per input edge (None where not needed)."""
    __slots__ = ("next_edges", "input_shapes", "_released", "pre_hooks", "__weakref__")
    saved_fields = ()    # generated nodes name the slots that hold saved tensors
    n_outputs = 1

    def __init__(self):
        self.next_edges = ()
        self.input_shapes = ()
        self._released = False
        self.pre_hooks = None

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
        super().__init__()
        self.variable = variable


def save(t):
    """Remember a tensor and its storage version; numbers and None pass through."""
    if t is None:
        return None
    h = getattr(t, "_h", None)
    return (t, None) if h is None else (t, h.storage.version)


