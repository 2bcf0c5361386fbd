"""Categorical(probs= or logits=) over the last dim; samples are int64 category indices."""
from .. import _dtype
from .. import _multi
from .. import _ops
from .. import _sampling

from .distribution import Distribution, logits_to_probs, real, simplex


def _finite_min(dtype):
    return -3.4028234663852886e38 if dtype == _dtype.float32 else -1.7976931348623157e308


class Categorical(Distribution):
    arg_constraints = {"probs": simplex, "logits": real}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            eps = 1.1920928955078125e-07 if probs.dtype == _dtype.float32 else 2.220446049250313e-16
            self.logits = self.probs.clamp(eps, 1 - eps).log()
            self._param = self.probs
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            self.probs = logits_to_probs(self.logits)
            self._param = self.logits
        self._num_events = self._param.shape[-1]
        super().__init__(self._param.shape[:-1], validate_args=validate_args)

    def support(self, v):
        return bool(((v >= 0) & (v < self._num_events) & (v == v.floor())).all().item()), \
            f"IntegerInterval(lower_bound=0, upper_bound={self._num_events - 1})"

    @property
    def param_shape(self):
        return self._param.shape

    @property
    def mean(self):
        return _ops.full(tuple(self.batch_shape), float("nan"), dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=()):
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        n = 1
        for s in sample_shape:
            n *= s
        probs_2d = self.probs.detach().reshape(-1, self._num_events)
        draws = _sampling.multinomial(probs_2d, n, True).transpose(0, 1)
        return draws.reshape(tuple(sample_shape) + tuple(self.batch_shape))

    def log_prob(self, value):
        self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = _multi.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=_finite_min(self.logits.dtype))
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = _ops.arange(self._num_events, dtype=_dtype.int64, device=self.probs.device)
        values = values.reshape((-1,) + (1,) * len(self.batch_shape))
        return values.expand((-1,) + tuple(self.batch_shape)) if expand else values
