"""SparseAdam: Adam's moments and step applied only at the positions a sparse gradient holds
(PyTorch's algorithm, step for step: coalesce, masked moment updates, dense values arithmetic)."""
import math

from .._ops import zeros_like
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """For parameters whose gradients are sparse (embedding(sparse=True)): at the gradient's positions,
    m += (1 - beta1) * (g - m), v += (1 - beta2) * (g^2 - v), p -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) *
    m / (sqrt(v) + eps); elsewhere nothing changes."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, b in enumerate(betas):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, maximize=maximize))
        sparse_params, complex_params = [], []
        for gi, group in enumerate(self.param_groups):
            for pi, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse_params.append([gi, pi])
                if p.is_complex():
                    complex_params.append([gi, pi])
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors")
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             f"parameters")

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._sparse_step(group, p)
        return loss

    def _sparse_step(self, group, p):
        grad = p.grad
        if not grad.is_sparse:
            raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        state = self.state[p]
        if not state:
            state["step"] = 0
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        state["step"] += 1
        step, (beta1, beta2) = state["step"], group["betas"]
        if group["maximize"]:
            grad = -grad
        grad = grad.coalesce()   # the update is not linear in g: each position once
        values = grad._values()
        if values.numel() == 0:
            return
        at = tuple(grad._indices())   # one index tensor per sparse dim
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        old_avg, old_sq = exp_avg[at], exp_avg_sq[at]
        avg_update = (values - old_avg) * (1 - beta1)
        exp_avg.index_put_(at, avg_update, accumulate=True)
        sq_update = (values * values - old_sq) * (1 - beta2)
        exp_avg_sq.index_put_(at, sq_update, accumulate=True)
        numer = avg_update + old_avg
        denom = (sq_update + old_sq).sqrt() + group["eps"]
        step_size = group["lr"] * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        p.index_put_(at, -step_size * (numer / denom), accumulate=True)
