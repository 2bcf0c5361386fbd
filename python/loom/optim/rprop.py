"""Rprop: resilient backpropagation, a per-element step size grown or shrunk by the sign of
successive gradients (PyTorch's formulation)."""
from .._ops import clamp, full_like, mul, where
from .optimizer import Optimizer, _check_non_negative

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Where g * g_prev > 0 the step size grows by etas[1], where < 0 it shrinks by etas[0] (and that
    gradient counts as 0, now and as the next g_prev), clamped to step_sizes; p -= sign(g) * step."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_non_negative("lr", lr, "learning rate")
        etaminus, etaplus = etas
        if not 0.0 < etaminus < 1.0 < etaplus:
            raise ValueError(f"Invalid eta values: {etaminus}, {etaplus}")
        defaults = dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)

    def _tensor_state(self, group):
        return ("prev", "step_size")

    def _update(self, group, g, st, step, fresh, tmp):
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        prev, step_size = st["prev"], st["step_size"]
        if fresh:
            step_size.copy_(full_like(step_size, group["lr"]))
        sign = mul(g, prev).sign_()
        factor = where(sign > 0, etaplus, sign)   # (Python numbers keep the tensor's dtype)
        factor = where(factor < 0, etaminus, factor)
        factor = where(factor == 0, 1.0, factor)
        step_size.mul_(factor)
        clamp(step_size, lo, hi, out=step_size)
        g = where(factor == etaminus, 0.0, g)   # (so also where etaminus happens to equal a factor of 1)
        prev.copy_(g)
        return mul(g.sign_(), step_size, out=tmp), -1.0
