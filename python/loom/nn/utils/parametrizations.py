"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations (the
state_dict keys are PyTorch's: parametrizations.weight.original0/original1 for weight_norm's
g and v, parametrizations.weight.original and parametrizations.weight.0._u/_v for spectral_norm)."""
from ... import _ops as _L
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm"]


def norm_except_dim(v, dim):
    """The 2-norm of v over every dim but `dim` (keeping dims), or of all of v when dim is -1."""
    if dim == -1:
        return _L.sqrt(_L.sum(v * v))
    dims = [d for d in range(v.ndim) if d != dim % v.ndim]
    return _L.sqrt(_L.sum(v * v, dims, keepdim=True)) if dims else _L.abs(v)


def _weight_norm(v, g, dim):
    return v * (g / norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrise module.<name> as g * v / ||v|| (Salimans & Kingma, 2016), the norm over every
    dim but `dim` (all of them when dim is None)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps, self.n_power_iterations = eps, n_power_iterations
        if ndim > 1:
            w = self._reshape_weight_to_matrix(weight)
            h, wd = w.shape
            u = F.normalize(_L.empty(h, dtype=weight.dtype).normal_(0, 1), dim=0, eps=self.eps)
            v = F.normalize(_L.empty(wd, dtype=weight.dtype).normal_(0, 1), dim=0, eps=self.eps)
            self.register_buffer("_u", u)
            self.register_buffer("_v", v)
            self._power_method(w, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, w, n):
        with no_grad():
            for _ in range(n):
                self._u.copy_(F.normalize(_L.matmul(w, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_L.matmul(w.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        w = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(w, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = _L.matmul(u, _L.matmul(w, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide module.<name> by its largest singular value, estimated by power iteration in training
    mode (Miyato et al., 2018); dim defaults to 1 for ConvTranspose modules, else 0."""
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "ndim"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
