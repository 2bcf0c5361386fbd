"""autograd.functional: vjp, jvp, jacobian, hessian over reverse mode.
jvp uses the double-vjp trick (forward mode proper is not built yet)."""
import numpy as np

from .. import _ops   # generated; it imports this module, so its names are read at call time
from .._numpy import tensor
from .._tensor import Tensor
from .api import grad


def _tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _prep(inputs, create_graph):
    """Leaves to differentiate at: the caller's own tensors only when they already
    require grad and create_graph asks to stay connected to them."""
    return tuple(x if create_graph and x.requires_grad else x.detach().requires_grad_() for x in _tuple(inputs))


def vjp(func, inputs, v=None, create_graph=False):
    """(func(inputs), v^T J)."""
    single = isinstance(inputs, Tensor)
    xs = _prep(inputs, create_graph)
    out = func(*xs)
    outs = _tuple(out)
    vs = [None] * len(outs) if v is None else list(_tuple(v))
    gs = grad(list(outs), list(xs), vs, create_graph=create_graph, allow_unused=True)
    gs = tuple(g if g is not None else x.detach() * 0 for g, x in zip(gs, xs))
    return (out if create_graph else _detach(out)), (gs[0] if single else gs)


def jvp(func, inputs, v=None, create_graph=False):
    """(func(inputs), J v), from two reverse passes."""
    xs = _prep(inputs, create_graph)
    out = func(*xs)
    outs = _tuple(out)
    us = [_ops.zeros_like(o).requires_grad_() for o in outs]
    gs = grad(list(outs), list(xs), us, create_graph=True, allow_unused=True)
    vs = [_ops.ones_like(x) for x in xs] if v is None else list(_tuple(v))
    # a vjp that does not depend on the seed (floor, sign: zero gradient) adds nothing
    pairs = [(g, w) for g, w in zip(gs, vs) if g is not None and g.requires_grad]
    if not pairs:
        jv = [None] * len(us)
    else:
        jv = grad([g for g, _ in pairs], us, [w for _, w in pairs], create_graph=create_graph, allow_unused=True)
    jv = tuple(j if j is not None else o.detach() * 0 for j, o in zip(jv, outs))
    return _detach(out) if not create_graph else out, (jv[0] if isinstance(out, Tensor) else jv)


def jacobian(func, inputs, create_graph=False):
    """J[i][j] of output i by input j, shaped output.shape + input.shape."""
    single_in = isinstance(inputs, Tensor)
    xs = _prep(inputs, create_graph)
    out = func(*xs)
    outs = _tuple(out)
    jac = []
    for o in outs:
        rows = [[] for _ in xs]
        for r in range(o.numel()):
            seed = np.zeros(o.numel())
            seed[r] = 1
            gs = grad([o], list(xs), [tensor(seed.reshape(tuple(o.shape)), dtype=o.dtype)], retain_graph=True,
                      create_graph=create_graph, allow_unused=True)
            for j, (g, x) in enumerate(zip(gs, xs)):
                rows[j].append(g if g is not None else x.detach() * 0)
        blocks = tuple((_ops.stack(rs) if rs else xs[j].detach().reshape(0)).reshape(tuple(o.shape) + tuple(xs[j].shape))
                       for j, rs in enumerate(rows))
        jac.append(blocks[0] if single_in else blocks)
    return jac[0] if isinstance(out, Tensor) else tuple(jac)


def hessian(func, inputs, create_graph=False):
    """Second derivatives of a scalar func."""
    single_in = isinstance(inputs, Tensor)

    def grads(*xs):
        out = func(*xs)
        gs = grad([out], list(xs), create_graph=True, allow_unused=True)
        return gs[0] if single_in else gs
    return jacobian(grads, inputs, create_graph=create_graph)


def _detach(out):
    return out.detach() if isinstance(out, Tensor) else tuple(o.detach() for o in out)
