"""Loading a state dict into a Module tree, with PyTorch's key rules and error messages."""
from collections import namedtuple

import numpy as np

from .._numpy import tensor
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from .parameter import Parameter


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _as_tensor(value, key, errors):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (np.ndarray, np.generic)):   # loom's convenience: NumPy arrays load directly
        return tensor(value)
    errors.append(f'While copying the parameter named "{key}", expected loom.Tensor or a NumPy array from '
                  f'checkpoint but received {type(value).__name__}')
    return None


def load_local(module, state_dict, prefix, missing, unexpected, errors, assign):
    """Load module's own parameters and persistent buffers from state_dict[prefix + name]."""
    local = dict(module._local_state())
    for name, param in local.items():
        key = prefix + name
        if key not in state_dict:
            missing.append(key)
            continue
        value = _as_tensor(state_dict[key], key, errors)
        if value is None:
            continue
        if tuple(value.shape) != tuple(param.shape):
            errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                          f"the shape in current model is {param.shape}.")
            continue
        try:
            with no_grad():
                if assign:
                    if isinstance(param, Parameter):
                        value = Parameter(value.to(param.dtype), param.requires_grad)
                    setattr(module, name, value)
                else:
                    param.copy_(value)
        except Exception as e:   # noqa: BLE001  (reported with the key, as PyTorch does)
            errors.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                          f'{param.shape} and whose dimensions in the checkpoint are {value.shape}, an exception '
                          f'occurred : {e.args}.')
    for key in state_dict:
        if key.startswith(prefix):
            parts = key[len(prefix):].split(".", 1)
            if parts[0] not in (module._modules if len(parts) > 1 else local):
                unexpected.append(key)


def load_state_dict(root, state_dict, strict, assign):
    if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing, unexpected, errors = [], [], []

    def load(module, prefix):
        module._load_from_state_dict(state_dict, prefix, missing, unexpected, errors, assign)
        for name, child in module._modules.items():
            if child is not None:
                load(child, prefix + name + ".")
    load(root, "")
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
    if errors:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(root).__name__,
                                                                                 "\n\t".join(errors)))
    return IncompatibleKeys(missing, unexpected)
