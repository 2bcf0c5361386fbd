"""Binomial(total_count=1, probs= or logits=): draws are sums of total_count Bernoulli draws (in chunks, so the
time grows with max(total_count)); entropy and enumerate_support need one total_count, as PyTorch's."""
from .. import _ops
from .. import _sampling
from ..autograd import grad_mode as _grad_mode

from .distribution import (Distribution, broadcast_all, lazy_property, logits_to_probs, nonnegative_integer,
                           probs_to_logits, real, unit_interval)

_CHUNK = 256


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    arg_constraints = {"total_count": nonnegative_integer, "probs": unit_interval, "logits": real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
            self._param = self.logits
        super().__init__(self._param.shape, validate_args=validate_args)

    def support(self, v):
        ok = bool(((v >= 0) & (v <= self.total_count) & (v == v.floor())).all().item())
        return ok, f"IntegerInterval(lower_bound=0, upper_bound={self.total_count})"

    @property
    def param_shape(self):
        return self._param.shape

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with _grad_mode.no_grad():
            n = self.total_count.expand(shape)
            p = self.probs.detach().expand(shape)
            total = _ops.zeros(shape, dtype=self.probs.dtype, device=self.probs.device)
            top = int(n.max().item()) if n.numel() else 0
            for start in range(0, top, _CHUNK):
                k = min(_CHUNK, top - start)
                trials = _ops.arange(start, start + k, dtype=p.dtype, device=p.device).reshape((k,) + (1,) * len(shape))
                draws = _sampling.bernoulli(p.unsqueeze(0).expand((k,) + shape).contiguous())
                total = total + (draws * (trials < n.unsqueeze(0)).to(p.dtype)).sum(0)
            return total

    def log_prob(self, value):
        self._validate_sample(value)
        log_factorial_n = (self.total_count + 1).lgamma()
        log_factorial_k = (value + 1).lgamma()
        log_factorial_nmk = (self.total_count - value + 1).lgamma()
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * (-self.logits.abs()).exp().log1p() - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what):
        total_count = int(self.total_count.max().item())
        if not int(self.total_count.min().item()) == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = self._homogeneous_count("enumerate_support")
        values = _ops.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
