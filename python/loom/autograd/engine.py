"""The backward engine: walk the graph from the outputs in dependency order,
sum gradients per node output, reduce broadcast gradients to each input's
shape, and accumulate into leaves (or capture them, for autograd.grad)."""
from .._tensor import Tensor
from .grad_mode import set_grad_enabled
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
        buf = buffers.setdefault(node, [None] * node.n_outputs)
        buf[nr] = _add(buf[nr], g)
    deps = _dependencies(list(buffers))
    ready = [n for n in buffers if deps.get(n, 0) == 0]
    with set_grad_enabled(create_graph):
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None) or [None] * node.n_outputs
            if node.pre_hooks:
                for nr, hooks in node.pre_hooks.items():
                    for hook in sorted(hooks, key=lambda h: getattr(h, "runs_last", False)):
                        if grads[nr] is not None:
                            r = hook(grads[nr])
                            grads[nr] = grads[nr] if r is None else r
            if capture is not None:
                for nr, g in enumerate(grads):
                    slot = capture.get((node, nr))
                    if slot is not None:
                        captured[slot] = _add(captured.get(slot), g)
            if isinstance(node, AccumulateGrad):
                if capture is None and grads[0] is not None:
                    _accumulate(node.variable, grads[0], create_graph)
                continue
            inputs = node.backward(grads) if any(g is not None for g in grads) else [None] * len(node.next_edges)
            if not retain_graph:
                node.release()
            for edge, shape, g in zip(node.next_edges, node.input_shapes, inputs):
                if edge is None:
                    continue
                child, nr = edge
                if g is not None:
                    if shape is not None:
                        g = sum_to(g, shape)
                    buf = buffers.setdefault(child, [None] * child.n_outputs)
                    buf[nr] = _add(buf[nr], g)
                deps[child] -= 1
                if deps[child] == 0:
                    ready.append(child)
    return captured


def _accumulate(leaf, g, create_graph):
    meta = leaf._ag
    if not create_graph and g.__class__ is not Tensor:   # keep .grad out of the graph
        g = g.detach()
    meta.grad = g if meta.grad is None else meta.grad + g
