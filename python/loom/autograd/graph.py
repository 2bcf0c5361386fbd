"""Building the graph as ops run: edges to inputs and attaching a node to
outputs (both in C, loom._autograd), and the in-place rules. Called only on the generated slow path (an input that
is not a plain Tensor), so ops on plain tensors never get here."""
from .._autograd import attach, edge, make_node  # noqa: F401  (C: the per-op hot path)
from .._tensor import GradTensor, Tensor
from .grad_mode import _state, no_grad


def needs_grad(*xs):
    for x in xs:
        meta = getattr(x, "_ag", None)
        if meta is not None and meta.requires_grad:
            return True
        if isinstance(x, (list, tuple)) and needs_grad(*x):
            return True
    return False


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
