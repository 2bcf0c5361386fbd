"""Module: the base class of layers - registration of parameters, buffers and
submodules, traversal, modes, dtype conversion, state dicts, hooks, repr."""
from collections import OrderedDict

from .._dtype import BY_NAME as _BY_NAME, dtype as _dtype_cls, device as _device_cls, float32, float64
from .._memory_format import channels_last, channels_last_3d
from .._ops import empty_like
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.leaf_grads import zero_grads
from .backward_hooks import BackwardHook
from .hooks import RemovableHandle
from .parameter import Parameter, _swap_data
from .state_dict import load_local, load_state_dict


def _typename(x):
    return "loom.Tensor" if isinstance(x, Tensor) else type(x).__name__


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _check_name(kind, name, module, own):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\", got: {name}")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")
    if hasattr(module, name) and name not in own:
        raise KeyError(f"attribute '{name}' already exists")


class Module:
    """Base class for all neural-network modules; subclasses define forward()."""
    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = set()
        d["_forward_hooks_always_called"] = set()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = set()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- registration ----
    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            f"(loom.Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            f"(loom.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                             f"the value in the forward() method.")
        self._parameters[name] = param

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if "_modules" not in self.__dict__:
            raise AttributeError("cannot assign module before Module.__init__() call")
        _check_name("module", name, self, self._modules)
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name):
        d = self.__dict__
        params = d.get("_parameters")
        if params is not None and name in params:   # the common case first: forward() reading its weights
            return params[name]
        for store in ("_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*stores):
            for s in stores:
                if name in s:
                    if isinstance(s, set):
                        s.discard(name)
                    else:
                        del s[name]

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                f"(loom.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            self._modules[name] = value
        elif d.get("_modules") is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                f"(loom.nn.Module or None expected)")
            self._modules[name] = value
        elif d.get("_buffers") is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                f"(loom.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, ()):
                del self.__dict__[store][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    # ---- traversal ----
    def _named_members(self, get, prefix, recurse, remove_duplicate):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mod_prefix, mod in modules:
            for k, v in get(mod):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                yield (mod_prefix + ("." if mod_prefix else "") + k, v)

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def get_submodule(self, target):
        mod = self
        for item in target.split(".") if target else ():
            if item not in mod.__dict__.get("_modules", {}):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if name not in mod._parameters:
            raise AttributeError(f"{mod._get_name()} has no parameter `{name}`")
        return mod._parameters[name]

    def get_buffer(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if name not in mod._buffers:
            raise AttributeError(f"{mod._get_name()} has no buffer `{name}`")
        return mod._buffers[name]

    # ---- modes and gradients ----
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- dtype / device ----
    def _apply(self, fn):
        for m in self.children():
            m._apply(fn)
        with no_grad():
            for k, p in self._parameters.items():
                if p is None:
                    continue
                new = fn(p)
                if p.is_meta != new.is_meta:   # to or from the meta device: memory cannot be swapped in
                    self._parameters[k] = Parameter(new, p.requires_grad)
                elif new is not p:
                    _swap_data(p, new)   # keeps the Parameter object, as PyTorch's param.data = ...
                if p.grad is not None:
                    g = fn(p.grad)
                    if g is not p.grad:
                        p.grad = g
            for k, b in self._buffers.items():
                if b is not None:
                    self._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """to(dtype), to(device), to(device, dtype), to(tensor), memory_format=; dtype applies to floating
        tensors only, memory_format to 4-d (channels_last) or 5-d (channels_last_3d) ones, as PyTorch's."""
        device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
        fmt = kwargs.pop("memory_format", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, _dtype_cls):
                dtype = a
            elif isinstance(a, (str, _device_cls)):
                device = a
            elif isinstance(a, bool):   # non_blocking passed positionally
                continue
            else:
                raise TypeError(f"to() received an invalid argument of type {type(a).__name__}")
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        rank = {channels_last: 4, channels_last_3d: 5}.get(fmt)

        def convert(t):
            if device is not None:
                t = t.to(device)
            if dtype is not None and t.is_floating_point():
                t = t.to(dtype)
            if fmt is not None and (rank is None or t.ndim == rank):
                t = t.contiguous(memory_format=fmt)
            return t
        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Parameters and buffers moved to device with uninitialised memory (from the meta device:
        memory for the first time); reset_parameters() then initialises them."""
        if not recurse:
            for k, p in self._parameters.items():
                if p is not None:
                    self._parameters[k] = Parameter(empty_like(p, device=device), p.requires_grad)
            for k, b in self._buffers.items():
                if b is not None:
                    self._buffers[k] = empty_like(b, device=device)
            return self
        return self._apply(lambda t: empty_like(t, device=device))

    def float(self):
        return self.to(float32)

    def double(self):
        return self.to(float64)

    def half(self):
        """Floating parameters and buffers as float16."""
        return self.to(_BY_NAME["float16"])

    def bfloat16(self):
        """Floating parameters and buffers as bfloat16."""
        return self.to(_BY_NAME["bfloat16"])

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    # ---- state dicts ----
    def _local_state(self):
        items = [(k, p) for k, p in self._parameters.items() if p is not None]
        items += [(k, b) for k, b in self._buffers.items()
                  if b is not None and k not in self._non_persistent_buffers_set]
        return items

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name (an OrderedDict), detached unless keep_vars."""
        if destination is None:
            destination = OrderedDict()
        for k, t in self._local_state():
            destination[prefix + k] = t if keep_vars else t.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, missing, unexpected, errors, assign):
        load_local(self, state_dict, prefix, missing, unexpected, errors, assign)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values (loom tensors or NumPy arrays) into parameters and buffers.
        Returns (missing_keys, unexpected_keys); raises on those when strict, and on shape mismatches always."""
        return load_state_dict(self, state_dict, strict, assign)

    # ---- hooks and calling ----
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) -> None or new args (hook(module, args, kwargs) -> None or (args, kwargs) with_kwargs)."""
        handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) -> None or a replacement output (hook(module, args, kwargs, output) with_kwargs)."""
        handle = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs,
                                 self._forward_hooks_always_called)
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> None or a replacement grad_output, run when the gradients with
        respect to the module's outputs are computed."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> None or a replacement grad_input, run when the
        gradients with respect to the module's (positional) tensor inputs are computed."""
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _run_forward_hooks(self, args, kwargs, result, only_always=False):
        for hid, hook in list(self._forward_hooks.items()):
            if only_always and hid not in self._forward_hooks_always_called:
                continue
            if hid in self._forward_hooks_with_kwargs:
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = res
        return result

    def __call__(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, new_kwargs),"
                                           f" but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw = None
        if self._backward_hooks or self._backward_pre_hooks:
            bw = BackwardHook(self, lambda: list(self._backward_hooks.values()),
                              lambda: list(self._backward_pre_hooks.values()))
            args = bw.setup_input_hook(args)
        try:
            result = self.forward(*args, **kwargs)
        except Exception:
            if self._forward_hooks_always_called:
                self._run_forward_hooks(args, kwargs, None, only_always=True)
            raise
        result = self._run_forward_hooks(args, kwargs, result)
        return result if bw is None else bw.setup_output_hook(result)

    # ---- repr ----
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({k}): " + _addindent(repr(m), 2) for k, m in self._modules.items()]
        lines = extra_lines + child_lines
        s = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                s += extra_lines[0]
            else:
                s += "\n  " + "\n  ".join(lines) + "\n"
        return s + ")"
