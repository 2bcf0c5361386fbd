"""Adadelta (Zeiler 2012, PyTorch's formulation)."""
from .._ops import add, mul
from .optimizer import Optimizer, _check_non_negative

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """s = rho * s + (1 - rho) * g * g; d = sqrt(a + eps) / sqrt(s + eps) * g;
    a = rho * a + (1 - rho) * d * d; p -= lr * d."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_non_negative("lr", lr, "learning rate")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_non_negative("eps", eps, "epsilon value")
        _check_non_negative("weight_decay", weight_decay, "weight_decay value")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)

    def _tensor_state(self, group):
        return ("square_avg", "acc_delta")

    def _update(self, group, g, st, step, fresh, tmp):
        rho, eps = group["rho"], group["eps"]
        square_avg, acc_delta = st["square_avg"], st["acc_delta"]
        square_avg.mul_(rho).add_(mul(g, g, out=tmp), alpha=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = add(acc_delta, eps, out=tmp).sqrt_().div_(std).mul_(g)   # (tmp: the fused step reads it back)
        acc_delta.mul_(rho).add_(mul(delta, delta), alpha=1 - rho)
        return delta, -group["lr"]
