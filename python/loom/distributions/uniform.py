"""Uniform(low, high): draws in [low, high)."""
from .. import _sampling

from .distribution import Distribution, broadcast_all, real


class Uniform(Distribution):
    arg_constraints = {"low": real, "high": real}
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all().item()):
            raise ValueError("Uniform is not defined when low>= high")

    def support(self, v):
        return bool(((v >= self.low) & (v < self.high)).all().item()), f"Interval(lower_bound={self.low}, upper_bound={self.high})"

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.mean * float("nan")

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        u = _sampling.rand(self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        self._validate_sample(value)
        inside = ((self.low <= value) & (value < self.high)).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value):
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()
