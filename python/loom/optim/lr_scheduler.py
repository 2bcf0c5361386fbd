"""Learning-rate schedulers with PyTorch's semantics: construction sets each group's "initial_lr" and takes
step 0; each step() advances last_epoch and writes the new rates into the optimizer's groups. Rates are
computed recursively from the current group["lr"] (so schedulers compose, as in PyTorch), or in closed
form when step(epoch) is given."""
from ._sched_base import CosineAnnealingLR, LambdaLR, LRScheduler, StepLR
from ._sched_compose import ChainedScheduler, ReduceLROnPlateau, SequentialLR
from ._sched_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from ._sched_factor import ConstantLR, ExponentialLR, LinearLR, MultiplicativeLR, MultiStepLR, PolynomialLR

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
           "OneCycleLR", "SequentialLR", "ChainedScheduler", "ReduceLROnPlateau"]
