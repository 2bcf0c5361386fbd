"""MultivariateNormal(loc, covariance_matrix= | precision_matrix= | scale_tril=): batched Gaussians over the last
dim, parameterised internally by the lower Cholesky factor of the covariance (as PyTorch's)."""
import math

from .. import _linalg_api
from .. import _multi
from .. import _ops
from .. import _sampling

from .distribution import (Distribution, lazy_property, lower_cholesky, positive_definite, real_vector)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1, without forming the inverse (PyTorch's flip trick)."""
    Lf = _linalg_api.cholesky(P.flip((-2, -1)))
    L_inv = Lf.flip((-2, -1)).mT
    eye = _ops.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return _linalg_api.solve_triangular(L_inv, eye.expand(tuple(L_inv.shape)), upper=False)


def batch_mahalanobis(L, x):
    """x^T (L L^T)^-1 x over the last dim, L and x's batch dims broadcast."""
    batch = _multi.broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1]))
    n = x.shape[-1]
    L = L.expand(tuple(batch) + (n, n))
    y = _linalg_api.solve_triangular(L, x.expand(tuple(batch) + (n,)).unsqueeze(-1), upper=False)
    return y.squeeze(-1).pow(2).sum(-1)


def half_log_det(L):
    return L.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": real_vector, "covariance_matrix": positive_definite,
                       "precision_matrix": positive_definite, "scale_tril": lower_cholesky}
    support = staticmethod(real_vector)
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, matrix = next((n, m) for n, m in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                                                 ("precision_matrix", precision_matrix)) if m is not None)
        if matrix.ndim < 2:
            qualifier = " matrix" if name == "scale_tril" else ""
            raise ValueError(f"{name}{qualifier} must be at least two-dimensional, with optional leading batch "
                             "dimensions")
        batch_shape = tuple(_multi.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        self.__dict__[name] = matrix.expand(batch_shape + tuple(matrix.shape[-2:]))
        self.loc = loc.expand(batch_shape + (loc.shape[-1],))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _linalg_api.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def _full(self, m):
        return m.expand(tuple(self._batch_shape) + tuple(m.shape[-2:]))

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return self._full(L @ L.mT)

    @lazy_property
    def precision_matrix(self):
        return self._full(_linalg_api.cholesky_inverse(self._unbroadcasted_scale_tril))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) +
                                                                    tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _sampling.randn(shape, dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        self._validate_sample(value)
        diff = value - self.loc
        M = batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det(
            self._unbroadcasted_scale_tril)

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det(self._unbroadcasted_scale_tril)
        return H.expand(tuple(self._batch_shape))
