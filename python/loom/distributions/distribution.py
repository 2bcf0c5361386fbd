"""The Distribution base class, as torch.distributions.Distribution: batch_shape/event_shape, sample/rsample,
log_prob, entropy, mean/variance/stddev, and argument validation (on by default, as PyTorch's __debug__)."""
from .. import _dtype
from .. import _linalg_api
from .. import _multi
from .. import _numpy
from .. import _ops
from .. import _tensor
from .._runtime import get_default_dtype
from ..autograd import grad_mode as _grad_mode


class lazy_property:
    """A value computed on first access and then cached in the instance's __dict__ (as PyTorch's lazy_property):
    a parameter given to __init__ (set in __dict__ there) shadows it, and only those are validated."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.fn(instance)
        instance.__dict__[self.__name__] = value
        return value


class Distribution:
    has_rsample = False
    has_enumerate_support = False
    arg_constraints = {}
    support = None
    _validate_default = __debug__

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError("set_default_validate_args expects a bool")
        Distribution._validate_default = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _tensor.Size(tuple(batch_shape))
        self._event_shape = _tensor.Size(tuple(event_shape))
        self._validate_args = self._validate_default if validate_args is None else validate_args
        if self._validate_args:
            for name, check in self.arg_constraints.items():
                value = self.__dict__.get(name)
                if value is None or not isinstance(value, _tensor.Tensor):
                    continue
                ok, what = check(value)
                if not ok:
                    raise ValueError(f"Expected parameter {name} (Tensor of shape {tuple(value.shape)}) of "
                                     f"distribution {self!r} to satisfy the constraint {what}, but found invalid "
                                     f"values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def expand(self, batch_shape, _instance=None):
        """A view of this distribution with its parameters expanded to batch_shape (no copy), as PyTorch's: every
        tensor parameter (those named in arg_constraints that are set, and `_expand_extra`) keeps its event dims."""
        new = _instance if _instance is not None else type(self).__new__(type(self))
        batch_shape = _tensor.Size(tuple(batch_shape))
        nb = len(self._batch_shape)
        names = set(self.arg_constraints) | set(self._expand_extra)
        for k, v in self.__dict__.items():
            if k in names and isinstance(v, _tensor.Tensor):
                v = v.expand(tuple(batch_shape) + tuple(v.shape[nb:]))
            new.__dict__[k] = v
        new._batch_shape = batch_shape
        return new

    _expand_extra = ("_param",)

    def sample(self, sample_shape=()):
        """Draws without gradient; rsample's under no_grad where there is one."""
        with _grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sample (rsample)")

    def sample_n(self, n):
        return self.sample((n,))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=()):
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def _validate_sample(self, value):
        if not isinstance(value, _tensor.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        if self._validate_args and self.support is not None:
            ok, what = self.support(value)
            if not ok:
                raise ValueError(f"Expected value argument (Tensor of shape {tuple(value.shape)}) to be within the "
                                 f"support ({what}) of the distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{k}: {self.__dict__[k].shape if self.__dict__[k].numel() > 1 else self.__dict__[k]}"
                         for k in names)
        return f"{type(self).__name__}({args})"


# constraints as (test, name) pairs: test(value) -> (all satisfied, name)
def _all(mask):
    return bool(mask.all().item())


def real(v):
    return _all(v == v), "Real()"


def positive(v):
    return _all(v > 0), "GreaterThan(lower_bound=0.0)"


def unit_interval(v):
    return _all((v >= 0) & (v <= 1)), "Interval(lower_bound=0.0, upper_bound=1.0)"


def boolean(v):
    return _all((v == 0) | (v == 1)), "Boolean()"


def simplex(v):
    return _all(v >= 0) and _all(((v.sum(-1) - 1).abs() < 1e-6)), "Simplex()"


def nonnegative_integer(v):
    return _all((v >= 0) & (v == v.floor())), "IntegerGreaterThan(lower_bound=0)"


def nonnegative(v):
    return _all(v >= 0), "GreaterThanEq(lower_bound=0.0)"


def real_vector(v):
    return _all(v == v), "IndependentConstraint(Real(), 1)"


def one_hot(v):
    return _all((v == 0) | (v == 1)) and _all(v.sum(-1) == 1), "OneHot()"


def lower_cholesky(v):
    return _all(v.tril() == v) and _all(v.diagonal(dim1=-2, dim2=-1) > 0), "LowerCholesky()"


def positive_definite(v):
    symmetric = _all(((v - v.mT).abs() <= 1e-6 * (1 + v.abs())))
    return symmetric and _all(_linalg_api.cholesky_ex(v).info == 0), "PositiveDefinite()"


def sum_rightmost(value, dim):
    """value summed over its `dim` rightmost dims."""
    return value.sum(tuple(range(-dim, 0))) if dim > 0 else value


def broadcast_all(*values):
    """Tensors and numbers broadcast to one shape (numbers as tensors of the default dtype, as PyTorch's)."""
    tensors = [v for v in values if isinstance(v, _tensor.Tensor)]
    dtype = tensors[0].dtype if tensors else get_default_dtype()
    values = [v if isinstance(v, _tensor.Tensor) else _numpy.tensor(float(v), dtype=dtype) for v in values]
    return list(_multi.broadcast_tensors(*values))


def probs_to_logits(probs, is_binary=False):
    eps = 1.1920928955078125e-07 if probs.dtype == _dtype.float32 else 2.220446049250313e-16
    p = probs.clamp(eps, 1 - eps)
    return (p.log() - (-p).log1p()) if is_binary else p.log()


def logits_to_probs(logits, is_binary=False):
    return logits.sigmoid() if is_binary else _ops.softmax(logits, -1)
