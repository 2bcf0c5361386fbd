"""autograd.Function: user-defined forward/backward, as in PyTorch."""
from .._tensor import Tensor
from .graph import attach, make_node
from .grad_mode import grad_enabled, no_grad
from .node import Node, save


class FunctionCtx:
    def __init__(self):
        self._saved = ()
        self._node = None
        self.needs_input_grad = ()
        self._non_differentiable = set()

    def save_for_backward(self, *tensors):
        self._saved = tuple(save(t) for t in tensors)

    @property
    def saved_tensors(self):
        node = self._node or Node()
        if node._released:
            node.unpack(None)   # raises the "backward through the graph a second time" error
        return tuple(node.unpack(s) for s in self._saved)

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable.update(id(t) for t in tensors)


class FunctionBackward(Node):
    __slots__ = ("ctx", "fn", "n_outputs")

    def name(self):
        return f"{self.fn.__name__}Backward"

    def backward(node, grads):
        out = node.fn.backward(node.ctx, *grads)
        out = out if isinstance(out, tuple) else (out,)
        if len(out) != len(node.next_edges):
            raise RuntimeError(f"function {node.fn.__name__}Backward returned an incorrect number of gradients "
                               f"(expected {len(node.next_edges)}, got {len(out)})")
        return list(out)

    def release(self):
        self._released = True
        self.ctx._saved = ()


class Function:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads); call with .apply(*args)."""

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("autograd.Function subclasses define forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("autograd.Function subclasses define backward(ctx, ...)")

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            out = cls.forward(ctx, *args)
        outs = out if isinstance(out, tuple) else (out,)
        if not (grad_enabled() and any(ctx.needs_input_grad)):
            return out
        first = next((o for o in outs if isinstance(o, Tensor)), None)
        node = make_node(FunctionBackward, args, first)
        node.ctx, node.fn, node.n_outputs = ctx, cls, len(outs)
        ctx._node = node
        for i, o in enumerate(outs):
            if isinstance(o, Tensor) and o.dtype.differentiable and id(o) not in ctx._non_differentiable:
                attach(o, node, i)
        return out
