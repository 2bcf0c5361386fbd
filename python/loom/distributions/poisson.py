"""Poisson(rate): integer-valued draws stored as floats of rate's dtype, as PyTorch's."""
from .. import _sampling
from ..autograd import grad_mode as _grad_mode

from .distribution import Distribution, broadcast_all, nonnegative, nonnegative_integer


class Poisson(Distribution):
    arg_constraints = {"rate": nonnegative}
    support = staticmethod(nonnegative_integer)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _grad_mode.no_grad():
            return _sampling.poisson(self.rate.expand(shape).contiguous())

    def log_prob(self, value):
        self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()
