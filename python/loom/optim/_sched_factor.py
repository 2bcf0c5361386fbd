"""Schedulers that scale the rate by a factor per step: MultiplicativeLR, MultiStepLR, ConstantLR, LinearLR,
ExponentialLR and PolynomialLR. As in PyTorch, get_lr() works recursively from the current group["lr"]
(so they compose with other schedulers) and _get_closed_form_lr() serves step(epoch)."""
import bisect
from collections import Counter

from ._sched_base import LambdaLR, LRScheduler

__all__ = ["MultiplicativeLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "PolynomialLR"]


class MultiplicativeLR(LambdaLR):
    """lr = lr * lr_lambda(last_epoch) each step (a function per group or one for all). Shares LambdaLR's
    construction and state_dict (callable objects save their __dict__, functions are not saved)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        for fn in (lr_lambda if isinstance(lr_lambda, (list, tuple)) else [lr_lambda]):
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return self._group_lrs()
        return [g["lr"] * fn(self.last_epoch) for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups)]


class MultiStepLR(LRScheduler):
    """Multiply the rate by gamma at each milestone (gamma ** n for a milestone listed n times)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        f = self.gamma ** self.milestones[self.last_epoch]
        return [g["lr"] * f for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        n = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** n for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr * factor for the first total_iters steps, then lr again."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in groups]
        if self.last_epoch != self.total_iters:
            return self._group_lrs()
        return [g["lr"] * (1.0 / self.factor) for g in groups]

    def _get_closed_form_lr(self):
        f = self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)
        return [base * f for base in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor goes linearly from start_factor to end_factor over total_iters steps, then stays."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups, t = self.optimizer.param_groups, self.last_epoch
        if t == 0:
            return [g["lr"] * self.start_factor for g in groups]
        if self._is_initial or t > self.total_iters:
            return self._group_lrs()
        d = self.end_factor - self.start_factor
        # the ratio of consecutive factors start + d * t / T over start + d * (t - 1) / T
        f = 1.0 + d / (self.total_iters * self.start_factor + (t - 1) * d)
        return [g["lr"] * f for g in groups]

    def _get_closed_form_lr(self):
        d = self.end_factor - self.start_factor
        f = self.start_factor + d * min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * f for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr * gamma every step."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:   # resuming (last_epoch >= 0) must not take one step too many
            return self._group_lrs()
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """base_lr * (1 - t / total_iters) ** power up to total_iters (0 there), then unchanged."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t, T = self.last_epoch, self.total_iters
        if self._is_initial or t > T:
            return self._group_lrs()
        f = ((1.0 - t / T) / (1.0 - (t - 1) / T)) ** self.power
        return [g["lr"] * f for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        f = (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
        return [base * f for base in self.base_lrs]
