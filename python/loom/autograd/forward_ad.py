"""Forward-mode AD: dual tensors carry a tangent through ops (one level: a dual_level inside
another is refused with PyTorch's error, as PyTorch refuses it).

Ops with a `result:` formula in derivatives.yaml use it; the others derive
their tangent from their backward formulas (two reverse passes: correct,
slower)."""
from collections import namedtuple

from .. import _ops   # generated; it imports this module, so its names are read at call time
from .._tensor import GradTensor, Tensor
from . import functional
from .node import AutogradMeta

_state = [0]          # > 0 inside dual_level; 0 while a tangent formula runs
_duals = []           # tensors given tangents at the current level

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


class dual_level:
    """Context in which make_dual tangents propagate; they are dropped on exit."""

    def __enter__(self):
        if _state[0]:
            raise RuntimeError("Nested forward mode AD is not supported at the moment")
        _state[0] = 1
        self._mark = len(_duals)
        return self

    def __exit__(self, *exc):
        for t in _duals[self._mark:]:
            meta = getattr(t, "_ag", None)
            if meta is not None:
                meta.fw_grad = None
        del _duals[self._mark:]
        _state[0] = 0
        return False


def _meta(t):
    meta = getattr(t, "_ag", None)
    if meta is None:
        t.__class__ = GradTensor
        t._ag = meta = AutogradMeta(False)
    return meta


def set_tangent(t, tangent):
    _meta(t).fw_grad = tangent
    _duals.append(t)


def tangent(x):
    meta = getattr(x, "_ag", None) if isinstance(x, Tensor) else None
    return None if meta is None else meta.fw_grad


def make_dual(tensor, tangent_):
    if not _state[0]:
        raise RuntimeError("make_dual must be called inside a forward_ad.dual_level() context")
    if tuple(tangent_.shape) != tuple(tensor.shape):
        raise ValueError(f"make_dual(): expected tangent of shape {list(tensor.shape)}, got {list(tangent_.shape)}")
    if not tensor.dtype.differentiable:
        raise ValueError("make_dual(): expected a floating point primal")
    _state[0], saved = 0, _state[0]
    try:
        dual = tensor.view(tuple(tensor.shape))   # keeps tensor's backward graph, if any
    finally:
        _state[0] = saved
    set_tangent(dual, tangent_)
    return dual


def unpack_dual(tensor):
    t = tangent(tensor)
    if t is None:
        return UnpackedDualTensor(tensor, None)
    _state[0], saved = 0, _state[0]
    try:
        primal = tensor.view(tuple(tensor.shape))
    finally:
        _state[0] = saved
    return UnpackedDualTensor(primal, t)


def propagate(result, primals, jvp):
    """Give result the tangent jvp(tangents) when any primal has one."""
    ts = [tangent(p) for p in primals]
    if all(t is None for t in ts):
        return
    ts = [t if t is not None else (_ops.zeros_like(p) if isinstance(p, Tensor) else 0.0) for p, t in zip(primals, ts)]
    _state[0] = 0          # the formula's own ops do not propagate
    try:
        out = jvp(*ts)
    finally:
        _state[0] = 1
    if out is not None:
        set_tangent(result, out)


def derived_jvp(fn, primals):
    """A jvp from backward formulas, for ops without a `result:` formula. Primals without a
    tangent add nothing and are left constant (an input the op cannot differentiate, such as
    nll_loss's weight, may not be made to require grad)."""
    def jvp(*ts):
        idx = [i for i, p in enumerate(primals)
               if isinstance(p, Tensor) and p.dtype.differentiable and tangent(p) is not None]
        if not idx:
            return None

        def f(*xs):
            args = list(primals)
            for i, x in zip(idx, xs):
                args[i] = x
            out = fn(*args)
            return out[0] if isinstance(out, tuple) else out
        xs = tuple(primals[i].detach() for i in idx)
        _, jv = functional.jvp(f, xs, tuple(ts[i] for i in idx))
        return jv
    return jvp
