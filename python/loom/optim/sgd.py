"""Stochastic gradient descent, optionally with momentum (PyTorch's formulation)."""
from .._ops import add
from .optimizer import Optimizer, _check_non_negative

__all__ = ["SGD"]


class SGD(Optimizer):
    """p -= lr * g, where g is the gradient (negated when maximize, plus weight_decay * p), or with momentum
    the buffer b = momentum * b + (1 - dampening) * g (b = g on the first step), and with nesterov
    g + momentum * b."""
    _sparse_grads = "densify"
    _counts_steps = False

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        _check_non_negative("lr", lr, "learning rate")
        _check_non_negative("momentum", momentum, "momentum value")
        _check_non_negative("weight_decay", weight_decay, "weight_decay value")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)

    def _tensor_state(self, group):
        return ("momentum_buffer",) if group["momentum"] != 0 else ()

    def _update(self, group, g, st, step, fresh, tmp):
        momentum = group["momentum"]
        if momentum == 0:
            return g, -group["lr"]
        buf = st["momentum_buffer"]
        if fresh:
            buf.copy_(g)
        else:
            buf.mul_(momentum).add_(g, alpha=1 - group["dampening"])
        if group["nesterov"]:
            return add(g, buf, alpha=momentum, out=tmp), -group["lr"]
        return buf, -group["lr"]
