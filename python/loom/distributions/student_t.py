"""StudentT(df, loc=0., scale=1.): draws as Normal / sqrt(Chi2(df) / df), the Chi2 from the standard-gamma kernel,
so rsample carries gradients to loc and scale but refuses a df that requires grad (no gamma reparameterisation)."""
import math

from .. import _ops
from .. import _sampling
from .._dtype_info import finfo
from .._sampling import _standard_gamma

from .distribution import Distribution, broadcast_all, positive, real


class StudentT(Distribution):
    arg_constraints = {"df": positive, "loc": real, "scale": positive}
    support = staticmethod(real)
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc.masked_fill(self.df <= 1, float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        v = self.scale.pow(2) * df / (df - 2)
        v = _ops.where(df > 2, v, _ops.full_like(v, float("inf")))
        return v.masked_fill(df <= 1, float("nan"))

    def rsample(self, sample_shape=()):
        if self.df.requires_grad:
            raise NotImplementedError("StudentT.rsample: no reparameterised gradient with respect to df in loom "
                                      "(Gamma draws have none yet); detach df or use sample()")
        shape = self._extended_shape(sample_shape)
        X = _sampling.randn(shape, dtype=self.df.dtype)
        Z = 2 * _standard_gamma(0.5 * self.df.detach().expand(shape).contiguous())   # Chi2(df)
        Y = X * (self.df.detach() / Z.clamp(min=finfo(Z.dtype).tiny)).sqrt()
        return self.loc + self.scale * Y

    def log_prob(self, value):
        self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + (0.5 * self.df).lgamma()
             - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - Z

    def entropy(self):
        lbeta = (0.5 * self.df).lgamma() + math.lgamma(0.5) - (0.5 * (self.df + 1)).lgamma()
        return (self.scale.log() + 0.5 * (self.df + 1) * ((0.5 * (self.df + 1)).digamma() - (0.5 * self.df).digamma())
                + 0.5 * self.df.log() + lbeta)
