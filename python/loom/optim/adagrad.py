"""Adagrad (PyTorch's formulation, with lr_decay and initial_accumulator_value)."""
from .._dtype import float32
from .._ops import div, full_like, mul, sqrt, zeros
from .optimizer import Optimizer, _check_non_negative

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """sum += g * g; p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum) + eps). As in PyTorch, the state
    (step 0, sum = initial_accumulator_value) exists from construction, for every parameter."""
    _sparse_grads = "densify"

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_non_negative("lr", lr, "learning rate")
        _check_non_negative("lr_decay", lr_decay, "lr_decay value")
        _check_non_negative("weight_decay", weight_decay, "weight_decay value")
        _check_non_negative("initial_accumulator_value", initial_accumulator_value,
                            "initial_accumulator_value value")
        _check_non_negative("eps", eps, "epsilon value")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def add_param_group(self, param_group):
        """Every group's parameters get their state here: at construction and when added later."""
        super().add_param_group(param_group)
        self._init_state(self.param_groups[-1])

    def _init_state(self, group):
        for p in group["params"]:
            st = self.state[p]
            if not st:
                st["step"] = zeros((), dtype=float32)
                st["sum"] = full_like(p, group["initial_accumulator_value"])

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)

    def _tensor_state(self, group):
        return ("sum",)

    def _update(self, group, g, st, step, fresh, tmp):
        s = st["sum"]
        s.add_(mul(g, g, out=tmp))
        std = sqrt(s, out=tmp).add_(group["eps"])
        return div(g, std, out=tmp), -group["lr"] / (1 + (step - 1) * group["lr_decay"])
