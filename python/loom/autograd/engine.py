"""The backward engine: walk the graph from the outputs in dependency order,
sum gradients per node output, reduce broadcast gradients to each input's
shape, and accumulate into leaves (or capture them, for autograd.grad).

The loop is C (loom._autograd.run); this module holds the Python functions it
calls back: sum_to, _run_hooks and _accumulate."""
from .. import _ops   # generated; it imports this package, so its names are read at call time
from .._dtype import BY_CODE
from .._tensor import Tensor


def sum_to(g, shape):
    """Reduce a broadcast gradient to `shape` (the engine's job, not each formula's). A shape in
    a list, [shape or None], is a real input's beside a complex result: its gradient is the real
    part (PyTorch's handle_r_to_c), so one formula serves real and complex operands; [shape or
    None, dtype code] is a floating input of another dtype than the result (mixed precision): its
    gradient is cast to that dtype (PyTorch's validate_outputs)."""
    if isinstance(shape, list):
        if len(shape) == 2:
            shape, code = shape
            if g.dtype.code != code:
                g = g.to(BY_CODE[code])
        else:
            if g.dtype.is_complex:
                g = _ops.real(g)
            shape = shape[0]
        if shape is None:
            return g
    gs = tuple(g.shape)
    if gs == tuple(shape):
        return g
    lead = len(gs) - len(shape)
    if lead < 0:   # the op dropped leading size-1 dims (x[i] = v with v of shape [1])
        return g.reshape(tuple(shape))
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and gs[lead + i] != 1]
    if dims:
        g = g.sum(dims, keepdim=True)
    return g.reshape(tuple(shape)) if lead or tuple(g.shape) != tuple(shape) else g


def _run_hooks(node, grads):
    for nr, hooks in node.pre_hooks.items():
        for hook in sorted(hooks, key=lambda h: getattr(h, "runs_last", False)):
            if grads[nr] is not None:
                r = hook(grads[nr])
                grads[nr] = grads[nr] if r is None else r


def _accumulate(leaf, g, create_graph, owned=False):
    """leaf.grad += g. A first gradient is stored as is only when `owned`
    (nothing else refers to it and it is dense); others are copied, so .grad
    never aliases another tensor (the engine's C fast path takes the rest)."""
    meta = leaf._ag
    if not create_graph and g.__class__ is not Tensor:   # keep .grad out of the graph
        g = g.detach()
        owned = False
    if meta.grad is None:
        meta.grad = g if owned else g.clone()
    elif meta.grad.is_sparse and not g.is_sparse:   # a sparse .grad meets a dense one: dense (PyTorch's)
        meta.grad = g + meta.grad
    else:   # sparse + sparse concatenates their entries; dense + sparse is dense
        meta.grad = meta.grad + g

