"""torch.nn.utils.parametrize: a module's tensor computed from other tensors on every access.

register_parametrization(module, "weight", P) moves the weight to
module.parametrizations.weight.original (or original0, original1, ... when P.right_inverse
returns several tensors) and puts a property named weight on a per-module subclass
(ParametrizedLinear), so module.weight is P(original) and assigning to it goes through
right_inverse. The state_dict keys are PyTorch's."""
import contextlib

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..containers import ModuleDict, ModuleList
from ..module import Module
from ..parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "ParametrizationList", "type_before_parametrizations", "transfer_parametrizations_and_params"]

_cache = {"enabled": 0, "values": {}}


@contextlib.contextmanager
def cached():
    """Inside the block each parametrized tensor is computed once and reused."""
    _cache["enabled"] += 1
    try:
        yield
    finally:
        _cache["enabled"] -= 1
        if not _cache["enabled"]:
            _cache["values"].clear()


def _register(module, name, tensor):
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _as_original(original, new):
    """The stored original: `original` itself holding new's values where it can (a Parameter stays the
    same object, as PyTorch's set_), else a Parameter/buffer like it."""
    if isinstance(original, Parameter):
        if tuple(original.shape) == tuple(new.shape) and original.dtype == new.dtype:
            original.data = new.detach()
            return original
        return Parameter(new.detach(), original.requires_grad)
    return new.detach()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, with its original tensor(s)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with no_grad():
            for m in reversed(self):
                if hasattr(m, "right_inverse"):
                    new = m.right_inverse(new)
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if not unsafe and (original.dtype != new.dtype):
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            _register(self, "original", _as_original(original, new))
        else:
            for i, t in enumerate(new):
                if not isinstance(t, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(t).__name__}.")
                _register(self, f"original{i}", Parameter(t.detach(), original.requires_grad)
                          if isinstance(original, Parameter) else t.detach())
        if not unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original.dtype or tuple(Z.shape) != tuple(original.shape):
                raise ValueError("Registering a parametrization may not change the shape or dtype of the tensor, "
                                 "unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original.dtype}\nparametrized dtype: {Z.dtype}\n"
                                 f"unparametrized shape: {tuple(original.shape)}\nparametrized shape: {tuple(Z.shape)}")

    def originals(self):
        return [self.original] if self.is_tensor else [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def right_inverse(self, value):
        """Set the original(s) so that the parametrized tensor becomes value."""
        with no_grad():
            for m in reversed(self):
                if not hasattr(m, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(m).__name__} does not implement right_inverse.")
                value = m.right_inverse(value)
            values = [value] if self.is_tensor else list(value)
            if len(values) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(values)}.")
            for orig, v in zip(self.originals(), values):
                orig.data = v.detach().to(orig.dtype)

    def forward(self):
        x = self[0](*self.originals())
        for m in list(self)[1:]:
            x = m(x)
        return x


def _property(tensor_name):
    def get(self):
        plist = self.parametrizations[tensor_name]
        if not _cache["enabled"]:
            return plist()
        key = (id(self), tensor_name)
        if key not in _cache["values"]:
            _cache["values"][key] = plist()
        return _cache["values"][key]

    def set_(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    return property(get, set_)


def _inject_class(module):
    cls = module.__class__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"_unparametrized_class": cls})


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make module.<tensor_name> parametrization(original) (see the module docstring)."""
    if not isinstance(parametrization, Module):
        raise TypeError(f"register_parametrization(): parametrization must be an nn.Module, got "
                        f"{type(parametrization).__name__}")
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype or tuple(X.shape) != tuple(Y.shape):
                raise ValueError("Registering a parametrization may not change the shape or dtype of the tensor, "
                                 "unless the `unsafe` flag is enabled.")
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
                         f"with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _inject_class(module)
        module.parametrizations = ModuleDict()
    setattr(module.__class__, tensor_name, _property(tensor_name))
    module.parametrizations[tensor_name] = plist
    return module


def is_parametrized(module, tensor_name=None):
    ps = module.__dict__.get("_modules", {}).get("parametrizations")
    if ps is None or not isinstance(ps, ModuleDict):
        return False
    return len(ps) > 0 if tensor_name is None else tensor_name in ps


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo register_parametrization: the tensor becomes a parameter/buffer again, holding the
    parametrized value (leave_parametrized=True) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            original = _as_original(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        first = plist.original0
        original = Parameter(t.detach(), first.requires_grad) if isinstance(first, Parameter) else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__._unparametrized_class
    return module


def type_before_parametrizations(module):
    """The module's class as it was before any parametrization was registered."""
    return module.__class__._unparametrized_class if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Give to_module the parametrizations (and their originals) that from_module has."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        src = from_module.parametrizations[name]
        if not is_parametrized(to_module, name):
            if name not in to_module._parameters and name not in to_module._buffers:
                setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
            for p in src:
                register_parametrization(to_module, name, p, unsafe=src.unsafe)
        dst = to_module.parametrizations[name]
        with no_grad():
            for a, b in zip(dst.originals(), src.originals()):
                a.data = b.detach().clone()
    return to_module
