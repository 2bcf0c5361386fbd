"""Gradient clipping with torch.nn.utils' semantics. foreach is accepted and ignored: loom has one path."""
import math

from ... import _ops as _L   # the generated ops: _L.abs is loom.abs
from ..._numpy import tensor
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _grads(parameters, op):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError(f"{op}(): parameters must be a Tensor or an iterable of Tensors, "
                        f"but got {type(parameters).__name__}") from None
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"{op}(): parameters must be Tensors, but got {type(p).__name__}")
    return [p.grad for p in params if p.grad is not None]


def _vector_norm(x, p):
    """The p-norm of all elements of x (a 0-d tensor of x's dtype), as linalg.vector_norm."""
    if p == math.inf:
        return _L.amax(_L.abs(x)) if x.numel() else _L.zeros((), dtype=x.dtype)
    if p == -math.inf:
        return _L.amin(_L.abs(x))
    if p == 0:
        return _L.sum(_L.ne(x, 0).to(x.dtype))
    if p == 1:
        return _L.sum(_L.abs(x))
    if p == 2:
        return _L.sqrt(_L.sum(_L.mul(x, x)))
    return _L.pow(_L.sum(_L.pow(_L.abs(x), p)), 1.0 / p)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients in place so that their joint norm (the norm of the per-gradient norms) is at
    most max_norm; returns that norm before clipping. Gradients are scaled by
    min(1, max_norm / (total_norm + 1e-6)), as PyTorch does, so a norm below max_norm leaves them as they are."""
    grads = _grads(parameters, "clip_grad_norm_")
    try:
        max_norm, norm_type = float(max_norm), float(norm_type)
    except (TypeError, ValueError):
        raise TypeError("clip_grad_norm_(): max_norm and norm_type must be numbers, "
                        f"but got {type(max_norm).__name__} and {type(norm_type).__name__}") from None
    if not grads:
        return tensor(0.0)
    with no_grad():
        norms = [_vector_norm(g.detach(), norm_type) for g in grads]
        dtype = norms[0].dtype
        total = _vector_norm(_L.stack([n.to(dtype) for n in norms]), norm_type)
        if error_if_nonfinite and not bool(_L.isfinite(total)):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               "so it cannot be clipped. To disable this error and scale the gradients by the "
                               "non-finite norm anyway, set `error_if_nonfinite=False`")
        # a tensor factor (no .item()): a non-finite norm scales the gradients to nan as PyTorch's does
        coef = _L.clamp(_L.div(max_norm, _L.add(total, 1e-6)), None, 1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place into [-clip_value, clip_value]."""
    grads = _grads(parameters, "clip_grad_value_")
    try:
        clip_value = float(clip_value)
    except (TypeError, ValueError):
        raise TypeError(f"clip_grad_value_(): clip_value must be a number, but got {type(clip_value).__name__}") \
            from None
    with no_grad():
        for g in grads:
            g.clamp_(-clip_value, clip_value)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (what clip_grad_norm_ measures), without clipping."""
    ts = [tensors] if isinstance(tensors, Tensor) else [t for t in tensors if t is not None]
    norm_type = float(norm_type)
    if not ts:
        return tensor(0.0)
    with no_grad():
        norms = [_vector_norm(t.detach(), norm_type) for t in ts]
        total = _vector_norm(_L.stack([n.to(norms[0].dtype) for n in norms]), norm_type)
    if error_if_nonfinite and not bool(_L.isfinite(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients in place by min(1, max_norm / (total_norm + 1e-6)), total_norm given."""
    grads = _grads(parameters, "clip_grads_with_norm_")
    if not grads:
        return
    with no_grad():
        coef = _L.clamp(_L.div(float(max_norm), _L.add(total_norm, 1e-6)), None, 1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
