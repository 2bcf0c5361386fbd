"""Building the graph as ops run: edges to inputs, attaching a node to outputs,
and the in-place rules. Called only on the generated slow path (an input that
is not a plain Tensor), so ops on plain tensors never get here."""
from .._C import lib
from .._tensor import GradTensor, Tensor
from .grad_mode import _state, no_grad
from .node import AccumulateGrad, AutogradMeta


def edge(x):
    """Where x's gradient goes: its grad_fn output, its accumulator, or nowhere."""
    meta = getattr(x, "_ag", None) if isinstance(x, Tensor) else None
    if meta is None or not meta.requires_grad:
        return None
    if meta.grad_fn is not None:
        return (meta.grad_fn, meta.output_nr)
    if meta.accumulator is None:
        meta.accumulator = AccumulateGrad(x)
    return (meta.accumulator, 0)


def needs_grad(*xs):
    for x in xs:
        meta = getattr(x, "_ag", None)
        if meta is not None and meta.requires_grad:
            return True
        if isinstance(x, (list, tuple)) and needs_grad(*x):
            return True
    return False


def make_node(cls, inputs, result):
    """A node of class cls over inputs (Tensors or numbers), or None when none
    requires grad. An input's shape is kept only when it differs from the
    result's: that is when the engine must reduce a broadcast gradient."""
    edges = [edge(x) for x in inputs]
    for e in edges:
        if e is not None:
            break
    else:
        return None
    node = cls()
    node.next_edges = edges
    rh = result._h
    same = lib.lm_same_shape
    node.input_shapes = [None if e is None or same(x._h, rh) else tuple(x.shape) for x, e in zip(inputs, edges)]
    return node


def attach(t, node, output_nr=0):
    old = getattr(t, "_ag", None)
    if t.__class__ is Tensor:   # subclasses (nn.Parameter written in place) keep their class
        t.__class__ = GradTensor
    t._ag = AutogradMeta(True, node, output_nr)
    if old is not None:
        t._ag.fw_grad = old.fw_grad   # a forward-mode tangent set before the node
    return t


def check_inplace(self, op):
    meta = getattr(self, "_ag", None)
    if meta is None or not _state[0]:
        return
    if meta.requires_grad and meta.grad_fn is None:
        raise RuntimeError(f"{op}(): a leaf Variable that requires grad is being used in an in-place operation.")
    if meta.is_view:
        # the base's history would miss the write (PyTorch rebases it with CopySlices): refuse
        raise RuntimeError(f"{op}(): in-place operations on a view of a tensor in the autograd graph are not "
                           f"supported yet; write through the base (base[idx] = ...) or clone() the view first.")


def inplace_via_outplace(self, compute, op):
    """self.op_(...) when autograd is involved: compute out of place on a copy
    of self (recorded), write the values back, and give self the new history.
    Nodes that saved self see its version change and refuse to run."""
    check_inplace(self, op)
    r = compute(self.clone())
    with no_grad():
        self.copy_(r)
    if isinstance(r, GradTensor):
        if self.__class__ is Tensor:
            self.__class__ = GradTensor
        self._ag = r._ag
    return self


def out_with_grad(op):
    raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, "
                       f"but one of the arguments requires grad.")
