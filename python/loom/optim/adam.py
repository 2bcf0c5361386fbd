"""Adam, with L2 or decoupled (AdamW) weight decay and the AMSGrad variant."""
from .._ops import adam_step_, div, maximum, mul, sqrt
from .optimizer import Optimizer, _check_non_negative

__all__ = ["Adam"]


def _check_betas(betas):
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")


class Adam(Optimizer):
    """m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g * g (v_max = max(v_max, v) with
    amsgrad); p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)."""
    _sparse_grads = "Adam does not support sparse gradients, please consider SparseAdam instead"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check_non_negative("lr", lr, "learning rate")
        _check_non_negative("eps", eps, "epsilon value")
        _check_betas(betas)
        _check_non_negative("weight_decay", weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    def _tensor_state(self, group):
        return ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if group["amsgrad"] else ("exp_avg", "exp_avg_sq")

    def _update(self, group, g, st, step, fresh, tmp):
        beta1, beta2 = group["betas"]
        m, v = st["exp_avg"], st["exp_avg_sq"]
        m.mul_(beta1).add_(g, alpha=1 - beta1)
        v.mul_(beta2).add_(mul(g, g, out=tmp), alpha=1 - beta2)
        if group["amsgrad"]:
            v = maximum(st["max_exp_avg_sq"], v, out=st["max_exp_avg_sq"])
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        denom = sqrt(v, out=tmp).div_(bias_correction2_sqrt).add_(group["eps"])
        return div(m, denom, out=tmp), -group["lr"] / (1 - beta1 ** step)

    def _fused_step(self, group, flat):
        """The whole group in one kernel (adam_step_) over the flat moment buffers."""
        if group["amsgrad"]:
            return super()._fused_step(group, flat)
        beta1, beta2 = group["betas"]
        try:   # the kernel checks every tensor before it writes any
            adam_step_(flat.bufs["exp_avg"], flat.bufs["exp_avg_sq"], flat.params, [p.grad for p in flat.params],
                       group["lr"], beta1, beta2, group["eps"], group["weight_decay"], flat.step_views[0].item() + 1,
                       group["decoupled_weight_decay"], group["maximize"])
        except ValueError:   # a non-contiguous parameter or gradient: the general path
            return super()._fused_step(group, flat)
        flat.steps.add_(1)
        flat.fresh = False
