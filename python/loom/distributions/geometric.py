"""Geometric(probs= or logits=): the number of failures before the first success (support 0, 1, 2, ...)."""
from .. import _ops
from .. import _sampling
from .._dtype_info import finfo
from ..autograd import grad_mode as _grad_mode
from ..nn import functional as F

from .distribution import (Distribution, broadcast_all, lazy_property, logits_to_probs, nonnegative_integer,
                           probs_to_logits, real, unit_interval)


class Geometric(Distribution):
    arg_constraints = {"probs": unit_interval, "logits": real}
    support = staticmethod(nonnegative_integer)

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        super().__init__(self._param.shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all().item()):
            invalid = self.probs[~(self.probs > 0)]
            raise ValueError(f"Expected parameter probs (Tensor of shape {tuple(self.probs.shape)}) of distribution "
                             f"{self!r} to be positive but found invalid values:\n{invalid}")

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _ops.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = finfo(self.probs.dtype).tiny
        with _grad_mode.no_grad():
            u = _sampling.rand(shape, dtype=self.probs.dtype).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.masked_fill((probs == 1) & (value == 0), 0.0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
