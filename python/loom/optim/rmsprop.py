"""RMSprop, optionally centered and with momentum (PyTorch's formulation)."""
from .._ops import div, mul, sqrt, sub
from .optimizer import Optimizer, _check_non_negative

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """s = alpha * s + (1 - alpha) * g * g; avg = sqrt(s) + eps, or centered sqrt(s - a * a) + eps with
    a = alpha * a + (1 - alpha) * g; p -= lr * g / avg, or with momentum b = momentum * b + g / avg,
    p -= lr * b."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_non_negative("lr", lr, "learning rate")
        _check_non_negative("eps", eps, "epsilon value")
        _check_non_negative("momentum", momentum, "momentum value")
        _check_non_negative("weight_decay", weight_decay, "weight_decay value")
        _check_non_negative("alpha", alpha, "alpha value")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("maximize", False)

    def _tensor_state(self, group):
        names = ("square_avg",)
        if group["momentum"] > 0:
            names += ("momentum_buffer",)
        if group["centered"]:
            names += ("grad_avg",)
        return names

    def _update(self, group, g, st, step, fresh, tmp):
        alpha = group["alpha"]
        square_avg = st["square_avg"]
        square_avg.mul_(alpha).add_(mul(g, g, out=tmp), alpha=1 - alpha)
        if group["centered"]:
            grad_avg = st["grad_avg"]
            grad_avg.mul_(alpha).add_(g, alpha=1 - alpha)
            avg = sub(square_avg, mul(grad_avg, grad_avg, out=tmp), out=tmp).sqrt_()
        else:
            avg = sqrt(square_avg, out=tmp)
        avg.add_(group["eps"])
        if group["momentum"] > 0:
            buf = st["momentum_buffer"]
            buf.mul_(group["momentum"]).add_(div(g, avg, out=tmp))
            return buf, -group["lr"]
        return div(g, avg, out=tmp), -group["lr"]
