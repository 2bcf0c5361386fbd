"""NAdam: Adam with Nesterov momentum and the momentum schedule of Dozat (PyTorch's formulation)."""
from .._dtype import float32
from .._ops import div, mul, ones, zeros, zeros_like
from .adam import _check_betas
from .optimizer import Optimizer, _check_non_negative

__all__ = ["NAdam"]


def _mu(beta1, step, momentum_decay):
    return beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))


class NAdam(Optimizer):
    """mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay)), mu_product = prod mu_t (a float32 state, as
    PyTorch's); Adam's moments; p -= lr * ((1 - mu_t) / (1 - mu_product) * g
    + mu_{t+1} / (1 - mu_product * mu_{t+1}) * m) / (sqrt(v / (1 - beta2**t)) + eps)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_non_negative("lr", lr, "learning rate")
        _check_non_negative("eps", eps, "epsilon value")
        _check_betas(betas)
        _check_non_negative("weight_decay", weight_decay, "weight_decay value")
        _check_non_negative("momentum_decay", momentum_decay, "momentum_decay value")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", False)

    def _tensor_state(self, group):
        return ("exp_avg", "exp_avg_sq")

    def _step_group(self, gi, group):
        """Advance each parameter's mu_product before the driver's step (it is 0-d, so not one of the flat
        buffers); the fused step reads the group's from the first parameter, all being at the same step then."""
        beta1, md = group["betas"][0], group["momentum_decay"]
        self._mu_product = None
        for p in group["params"]:
            if p.grad is None:
                continue
            st = self.state[p]
            if not st:   # PyTorch's key order: step, mu_product, exp_avg, exp_avg_sq
                st["step"] = zeros((), dtype=float32)
                st["mu_product"] = ones((), dtype=float32)
                st["exp_avg"], st["exp_avg_sq"] = zeros_like(p), zeros_like(p)
            st["mu_product"].mul_(_mu(beta1, float(st["step"]) + 1, md))
            if self._mu_product is None:
                self._mu_product = st["mu_product"].item()
        super()._step_group(gi, group)

    def _update(self, group, g, st, step, fresh, tmp):
        beta1, beta2 = group["betas"]
        m, v = st["exp_avg"], st["exp_avg_sq"]
        mu_product = st["mu_product"].item() if "mu_product" in st else self._mu_product
        mu, mu_next = _mu(beta1, step, group["momentum_decay"]), _mu(beta1, step + 1, group["momentum_decay"])
        m.mul_(beta1).add_(g, alpha=1 - beta1)
        v.mul_(beta2).add_(mul(g, g, out=tmp), alpha=1 - beta2)
        denom = div(v, 1 - beta2 ** step).sqrt_().add_(group["eps"])
        lr = group["lr"]
        u = mul(g, -lr * (1.0 - mu) / (1.0 - mu_product), out=tmp)
        u.add_(m, alpha=-lr * mu_next / (1.0 - mu_product * mu_next))
        return u.div_(denom), 1.0
