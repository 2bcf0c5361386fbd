"""Bernoulli(probs= or logits=)."""
from .. import _numpy
from .. import _sampling
from ..autograd import grad_mode as _grad_mode
from ..nn import functional as F

from .distribution import Distribution, boolean, broadcast_all, logits_to_probs, probs_to_logits, real, unit_interval


class Bernoulli(Distribution):
    arg_constraints = {"probs": unit_interval, "logits": real}
    support = staticmethod(boolean)
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self.logits = probs_to_logits(self.probs, is_binary=True)
            param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = logits_to_probs(self.logits, is_binary=True)
            param = self.logits
        self._param = param
        super().__init__(param.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        m = (self.probs >= 0.5).to(self.probs.dtype)
        return m.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self):
        return self._param.shape

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _grad_mode.no_grad():
            return _sampling.bernoulli(self.probs.expand(shape).contiguous())

    def log_prob(self, value):
        self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value.to(logits.dtype), reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = _numpy.tensor([0.0, 1.0], dtype=self.probs.dtype).reshape((2,) + (1,) * len(self.batch_shape))
        return values.expand((2,) + tuple(self.batch_shape)) if expand else values
