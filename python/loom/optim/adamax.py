"""Adamax: Adam with the infinity norm in place of the second moment (PyTorch's formulation)."""
from .._ops import abs as _abs, div, maximum
from .adam import _check_betas
from .optimizer import Optimizer, _check_non_negative

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """m = beta1 * m + (1 - beta1) * g; u = max(beta2 * u, |g| + eps); p -= lr / (1 - beta1**t) * m / u."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_non_negative("lr", lr, "learning rate")
        _check_non_negative("eps", eps, "epsilon value")
        _check_betas(betas)
        _check_non_negative("weight_decay", weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)

    def _tensor_state(self, group):
        return ("exp_avg", "exp_inf")

    def _update(self, group, g, st, step, fresh, tmp):
        beta1, beta2 = group["betas"]
        m, u = st["exp_avg"], st["exp_inf"]
        m.mul_(beta1).add_(g, alpha=1 - beta1)
        maximum(u.mul_(beta2), _abs(g, out=tmp).add_(group["eps"]), out=u)
        return div(m, u, out=tmp), -group["lr"] / (1 - beta1 ** step)
