"""torch.nn.utils.weight_norm / spectral_norm in their older, hook-based form, which much published
code still imports: the weight becomes a plain attribute recomputed by a forward pre-hook from
weight_g/weight_v (weight_norm) or weight_orig with the weight_u/weight_v buffers (spectral_norm),
PyTorch's state_dict keys. remove_weight_norm / remove_spectral_norm undo them."""
import warnings

from ... import _ops as _L
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter
from .parametrizations import _weight_norm, norm_except_dim

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]


class _WeightNormHook:
    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Deprecated in PyTorch in favour of nn.utils.parametrizations.weight_norm, and kept as it was."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    hook = _WeightNormHook(name, -1 if dim is None else dim)
    weight = getattr(module, name)
    if weight is None or not isinstance(weight, Parameter):
        raise ValueError(f"Module '{module}' has no parameter named '{name}'")
    delattr(module, name)
    module.register_parameter(name + "_g", Parameter(norm_except_dim(weight.detach(), hook.dim)))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, hook.compute_weight(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module, name="weight"):
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            with no_grad():
                weight = hook.compute_weight(module)
            delattr(module, name)
            delattr(module, name + "_g")
            delattr(module, name + "_v")
            module.register_parameter(name, Parameter(weight.detach()))
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")


class _SpectralNormHook:
    def __init__(self, name, n_power_iterations, dim, eps):
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        w = self.matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(_L.matmul(w.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(_L.matmul(w, v), dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()
        sigma = _L.matmul(u, _L.matmul(w, v))
        return weight / sigma

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """The hook-based spectral norm: weight = weight_orig / sigma, sigma by power iteration."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _SpectralNormHook) and hook.name == name:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    if n_power_iterations <= 0:
        raise ValueError("Expected n_power_iterations to be positive, but got "
                         f"n_power_iterations={n_power_iterations}")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    weight = getattr(module, name)
    hook = _SpectralNormHook(name, n_power_iterations, dim, eps)
    with no_grad():
        w = hook.matrix(weight)
        h, wd = w.shape
        u = F.normalize(_L.empty(h, dtype=weight.dtype).normal_(0, 1), dim=0, eps=eps)
        v = F.normalize(_L.empty(wd, dtype=weight.dtype).normal_(0, 1), dim=0, eps=eps)
    delattr(module, name)
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach() * 1.0)
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    return module


def remove_spectral_norm(module, name="weight"):
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, _SpectralNormHook) and hook.name == name:
            with no_grad():
                weight = hook.compute_weight(module, do_power_iteration=False)
            delattr(module, name)
            delattr(module, name + "_u")
            delattr(module, name + "_v")
            delattr(module, name + "_orig")
            module.register_parameter(name, Parameter(weight.detach()))
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
