"""The backward engine: walk the graph from the outputs in dependency order,
sum gradients per node output, reduce broadcast gradients to each input's
shape, and accumulate into leaves (or capture them, for autograd.grad)."""
from .._tensor import Tensor
from .grad_mode import _state as _grad_state
from .node import AccumulateGrad


def sum_to(g, shape):
    """Reduce a broadcast gradient to `shape` (the engine's job, not each formula's)."""
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


def _dependencies(roots):
    deps, seen, stack = {}, set(roots), list(roots)
    while stack:
        node = stack.pop()
        for edge in node.next_edges:
            if edge is None:
                continue
            child = edge[0]
            deps[child] = deps.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return deps


def _add(a, b):
    return b if a is None else (a if b is None else a + b)


def run(roots, retain_graph, create_graph, capture=None):
    """roots: [(node, output_nr, grad)]. capture: {(node, output_nr): slot} for
    autograd.grad; returns {slot: grad}. Without capture, leaves accumulate."""
    captured = {}
    buffers = {}
    for node, nr, g in roots:
        buf = buffers.get(node)
        if buf is None:
            buffers[node] = buf = [None] * node.n_outputs
        buf[nr] = _add(buf[nr], g)
    deps = _dependencies(list(buffers))
    ready = [n for n in buffers if n not in deps]
    prev, _grad_state[0] = _grad_state[0], create_graph   # formulas record only for create_graph
    try:
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None) or [None] * node.n_outputs
            if node.pre_hooks:
                _run_hooks(node, grads)
            if capture is not None:
                for nr, g in enumerate(grads):
                    slot = capture.get((node, nr))
                    if slot is not None:
                        captured[slot] = _add(captured.get(slot), g)
            if node.__class__ is AccumulateGrad:
                if capture is None and grads[0] is not None:
                    _accumulate(node.variable, grads[0], create_graph)
                continue
            for g in grads:   # identity tests: list.count(None) would call Tensor.__eq__
                if g is not None:
                    inputs = node.backward(grads)
                    break
            else:
                inputs = ()
            if not retain_graph:
                node.release()
            for k, edge in enumerate(node.next_edges):
                if edge is None:
                    continue
                child = edge[0]
                g = inputs[k] if inputs else None
                if g is not None:
                    shape = node.input_shapes[k]
                    if shape is not None:
                        g = sum_to(g, shape)
                    buf = buffers.get(child)
                    if buf is None:
                        buffers[child] = buf = [None] * child.n_outputs
                    nr = edge[1]
                    buf[nr] = g if buf[nr] is None else buf[nr] + g
                left = deps[child] - 1
                deps[child] = left
                if left == 0:
                    ready.append(child)
    finally:
        _grad_state[0] = prev
    return captured


def _run_hooks(node, grads):
    for nr, hooks in node.pre_hooks.items():
        for hook in sorted(hooks, key=lambda h: getattr(h, "runs_last", False)):
            if grads[nr] is not None:
                r = hook(grads[nr])
                grads[nr] = grads[nr] if r is None else r


def _accumulate(leaf, g, create_graph):
    meta = leaf._ag
    if not create_graph and g.__class__ is not Tensor:   # keep .grad out of the graph
        g = g.detach()
    meta.grad = g if meta.grad is None else meta.grad + g
