"""RAdam: Adam with the variance rectification of Liu et al. (PyTorch's formulation)."""
from .._ops import div, mul, sqrt
from .adam import _check_betas
from .optimizer import Optimizer, _check_non_negative

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Adam's moments; while the approximated SMA length rho_t <= 5 the step is plain momentum,
    p -= lr * m / (1 - beta1**t); after, p -= lr * r_t * m / (1 - beta1**t) * sqrt(1 - beta2**t) / (sqrt(v) + eps)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_non_negative("lr", lr, "learning rate")
        _check_non_negative("eps", eps, "epsilon value")
        _check_betas(betas)
        _check_non_negative("weight_decay", weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    def _tensor_state(self, group):
        return ("exp_avg", "exp_avg_sq")

    def _update(self, group, g, st, step, fresh, tmp):
        beta1, beta2 = group["betas"]
        m, v = st["exp_avg"], st["exp_avg_sq"]
        m.mul_(beta1).add_(g, alpha=1 - beta1)
        v.mul_(beta2).add_(mul(g, g, out=tmp), alpha=1 - beta2)
        bc1, bc2 = 1 - beta1 ** step, 1 - beta2 ** step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2 ** step / bc2
        if rho_t <= 5.0:
            return m, -group["lr"] / bc1
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        denom = sqrt(v, out=tmp).add_(group["eps"])
        return div(m, denom, out=tmp), -group["lr"] * rect * bc2 ** 0.5 / bc1
