"""Gamma(concentration, rate), Beta(concentration1, concentration0) and Dirichlet(concentration): samples
from the standard-gamma kernel (no reparameterised gradient yet: rsample is refused, not approximated)."""
from .. import _ops
from ..autograd import grad_mode as _grad_mode
from .._sampling import _standard_gamma

from .distribution import Distribution, broadcast_all, positive, simplex, unit_interval


class Gamma(Distribution):
    arg_constraints = {"concentration": positive, "rate": positive}
    support = staticmethod(lambda v: (bool((v >= 0).all().item()), "GreaterThanEq(lower_bound=0.0)"))

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _grad_mode.no_grad():
            return _standard_gamma(self.concentration.expand(shape).contiguous()) / self.rate.expand(shape)

    def log_prob(self, value):
        self._validate_sample(value)
        a, r = self.concentration, self.rate
        return _ops.xlogy(a, r) + _ops.xlogy(a - 1, value) - r * value - a.lgamma()

    def entropy(self):
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()


class Beta(Distribution):
    arg_constraints = {"concentration1": positive, "concentration0": positive}
    support = staticmethod(unit_interval)

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        super().__init__(self.concentration1.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _grad_mode.no_grad():
            x = _standard_gamma(self.concentration1.expand(shape).contiguous())
            y = _standard_gamma(self.concentration0.expand(shape).contiguous())
            return x / (x + y)

    def log_prob(self, value):
        self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return _ops.xlogy(a - 1, value) + _ops.xlogy(b - 1, 1 - value) + (a + b).lgamma() - a.lgamma() - b.lgamma()

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        return (a.lgamma() + b.lgamma() - total.lgamma() - (a - 1) * a.digamma() - (b - 1) * b.digamma()
                + (total - 2) * total.digamma())


class Dirichlet(Distribution):
    arg_constraints = {"concentration": positive}
    support = staticmethod(simplex)

    def __init__(self, concentration, validate_args=None):
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        a0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (a0 - self.concentration) / (a0.pow(2) * (a0 + 1))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _grad_mode.no_grad():
            g = _standard_gamma(self.concentration.expand(shape).contiguous())
            return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        self._validate_sample(value)
        a = self.concentration
        return _ops.xlogy(a - 1, value).sum(-1) + a.sum(-1).lgamma() - a.lgamma().sum(-1)

    def entropy(self):
        a = self.concentration
        k = a.shape[-1]
        a0 = a.sum(-1)
        return a.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma() - ((a - 1.0) * a.digamma()).sum(-1)
