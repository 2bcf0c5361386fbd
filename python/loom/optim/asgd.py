"""ASGD: averaged stochastic gradient descent (Polyak-Juditsky averaging, PyTorch's formulation)."""
from .._dtype import float32
from .._ops import full, ones
from .optimizer import Optimizer, _check_non_negative, _zeros_like, _zeros_scalar

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """p = p * (1 - lambd * eta) - eta * g; the average ax follows p (ax += mu * (p - ax)); then
    eta = lr / (1 + lambd * lr * t)^alpha and mu = 1 / max(1, t - t0). eta and mu are float32
    scalars in the state, as PyTorch keeps them (its steps use their rounded values)."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_non_negative("lr", lr, "learning rate")
        _check_non_negative("weight_decay", weight_decay, "weight_decay value")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)

    def _step_group(self, gi, group):   # its update reads the new parameter: one parameter at a time
        lr, lambd = group["lr"], group["lambd"]
        for p in group["params"]:
            if p.grad is None:
                continue
            st = self.state[p]
            if not st:
                st["step"] = _zeros_scalar()
                st["eta"] = full((), lr, dtype=float32)
                st["mu"] = ones((), dtype=float32)
                st["ax"] = _zeros_like(p)
            st["step"].add_(1)
            g = self._decay_and_sign(group, p, p.grad, owned=False)
            eta, mu, ax = st["eta"].item(), st["mu"].item(), st["ax"]
            p.mul_(1 - lambd * eta).add_(g, alpha=-eta)
            if mu != 1:
                ax.add_((p - ax).mul_(mu))
            else:
                ax.copy_(p)
            t = st["step"].item()
            st["eta"].fill_(lr / (1 + lambd * lr * t) ** group["alpha"])
            st["mu"].fill_(1 / max(1, t - group["t0"]))
