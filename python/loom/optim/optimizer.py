"""The Optimizer base: parameter groups, state, state_dict, and the step driver.

Subclasses give the update rule once, as `_update(group, g, st, step, fresh, tmp)`
over whole tensors; the driver runs it either per parameter or, when it can,
once over flat buffers that hold the state of every parameter of a group
(see _flat.py). Per-op Python overhead dominates small models, so the fused
path turns ~10 ops per parameter into ~10 ops per group plus two per parameter."""
import copy
import warnings
from collections import defaultdict

from .._dtype import float32
from .._numpy import tensor
from .._ops import view_as_real, zeros, zeros_like
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.leaf_grads import zero_grads
from ._flat import try_build

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a hyperparameter that every parameter group must give."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    return "loom.Tensor" if isinstance(obj, Tensor) else type(obj).__name__


def _check_non_negative(name, value, what):
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


class Optimizer:
    # Subclass knobs: whether state holds a "step" count, and which tensor
    # states a group needs (a method, since it can depend on the group).
    _counts_steps = True
    # a sparse gradient (embedding(sparse=True)): "densify" steps with its dense form, which is the same
    # update for rules linear in g (SGD) or zero where g is (Adagrad); else step() refuses it with this
    # message (PyTorch's), {name} standing for the class name
    _sparse_grads = "{name} does not support sparse gradients"

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._flat = {}   # group index -> Flat (fused-path buffers)
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
        return "\n".join(lines) + "\n)"

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._flat = {}

    # ---- parameter groups ----
    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        param_group["params"] = params
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error", stacklevel=3)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        for g in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in g):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ---- gradients ----
    def zero_grad(self, set_to_none=True):
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    # ---- state_dict ----
    def state_dict(self):
        """{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}, indices counting the
        parameters across groups in order. State tensors are returned by reference, as PyTorch does."""
        index, groups = {}, []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        if not isinstance(state_dict, dict) or "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError("load_state_dict(): expected a dict with 'state' and 'param_groups' "
                             "(as returned by Optimizer.state_dict())")
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = {}
        for g, s in zip(self.param_groups, saved_groups):
            id_map.update(zip(s["params"], g["params"]))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                p = id_map[k]
                state[p] = {name: _cast(p, name, value) for name, value in v.items()}
            else:
                state[k] = v
        for g, s in zip(self.param_groups, saved_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})

    # ---- the step driver ----
    def _tensor_state(self, group):
        """Names of the per-parameter tensor states this group keeps, besides "step"."""
        return ()

    def _update(self, group, g, st, step, fresh, tmp):
        """The update rule over whole tensors. `g` is the gradient after maximize and L2 weight decay (never
        modified here), `st` maps state names to tensors, `tmp` is a scratch tensor of g's shape or None.
        Returns (u, alpha): the driver applies param.add_(u, alpha=alpha)."""
        raise NotImplementedError

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for i, group in enumerate(self.param_groups):
                self._step_group(i, group)
        return loss

    def _step_group(self, gi, group):
        params = group["params"]
        sparse = [(p, p.grad) for p in params if p.grad is not None and p.grad.is_sparse]
        if sparse:
            if self._sparse_grads != "densify":
                raise RuntimeError(self._sparse_grads.format(name=type(self).__name__))
            for p, g in sparse:
                p.grad = g.to_dense()
            try:
                return self._step_group_dense(gi, group, params)
            finally:
                for p, g in sparse:   # the caller's .grad stays sparse, as PyTorch leaves it
                    p.grad = g
        return self._step_group_dense(gi, group, params)

    def _step_group_dense(self, gi, group, params):
        names = self._tensor_state(group)
        stateful = bool(names) or self._counts_steps
        flat = self._flat.get(gi) if stateful else None
        if flat is not None and not flat.valid(params, self.state, names):
            del self._flat[gi]
            flat = None
        if flat is None and stateful and len(params) > 1:
            flat = try_build(params, self.state, names, self._counts_steps)
            if flat is not None:
                self._flat[gi] = flat
        if flat is not None:
            self._fused_step(group, flat)
        else:
            self._flat.pop(gi, None)   # per-parameter steps may leave the step counts apart
            for p in params:
                if p.grad is not None:
                    self._param_step(group, p, names)

    def _decay_and_sign(self, group, p, g, owned):
        """maximize and weight decay, as PyTorch orders them: negate, then decay (L2 into g, or the
        decoupled shrink of p)."""
        if group.get("maximize", False):
            g = g.neg_() if owned else g.neg()
        wd = group.get("weight_decay", 0)
        if wd != 0:
            if group.get("decoupled_weight_decay", False):
                p.mul_(1 - group["lr"] * wd)
            else:
                g = g.add_(p, alpha=wd) if owned else g.add(p, alpha=wd)
        return g

    def _param_step(self, group, p, names):
        st = self.state[p] if names or self._counts_steps else {}   # stateless rules leave no state entry
        fresh = not st
        if fresh:
            if self._counts_steps:
                st["step"] = _zeros_scalar()
            for n in names:
                st[n] = _zeros_like(p)
        step = None
        if self._counts_steps:
            st["step"].add_(1)
            step = st["step"].item()
        g = self._decay_and_sign(group, p, p.grad, owned=False)
        if p.dtype.is_complex:   # PyTorch's rule: a complex parameter steps as its real view (..., 2)
            real = {k: view_as_real(v) for k, v in st.items() if isinstance(v, Tensor) and v.dtype.is_complex}
            st_real = {**st, **real}
            u, alpha = self._update(group, view_as_real(g), st_real, step, fresh, None)
            st.update((k, v) for k, v in st_real.items() if k not in real)
            view_as_real(p).add_(u, alpha=alpha)
            return
        u, alpha = self._update(group, g, st, step, fresh, None)
        p.add_(u, alpha=alpha)

    def _fused_step(self, group, flat):
        params = flat.params
        for gv, p in zip(flat.grad_views, params):
            gv.copy_(p.grad)
        if group.get("maximize", False):
            flat.grad.neg_()
        wd = group.get("weight_decay", 0)
        if wd != 0:
            if group.get("decoupled_weight_decay", False):
                shrink = 1 - group["lr"] * wd
                for p in params:
                    p.mul_(shrink)
            else:
                for gv, p in zip(flat.grad_views, params):
                    gv.add_(p, alpha=wd)
        step = None
        if flat.steps is not None:
            flat.steps.add_(1)
            step = flat.step_views[0].item()
        fresh, flat.fresh = flat.fresh, False
        u, alpha = self._update(group, flat.grad, flat.bufs, step, fresh, flat.tmp)
        for uv, p in zip(flat.views_of(u), params):
            p.add_(uv, alpha=alpha)


def _zeros_like(p):
    return zeros_like(p)


def _zeros_scalar():
    return zeros((), dtype=float32)


def _cast(p, name, value):
    """A loaded state value, converted for parameter p: tensors copied to p's device and dtype (except "step"),
    plain step numbers made into float32 tensors as PyTorch does."""
    if name == "step":
        if isinstance(value, Tensor):
            return value.to(float32, copy=True)
        return tensor(float(value), dtype=float32)
    if isinstance(value, Tensor):
        dtype = p.dtype if p.is_floating_point() and value.is_floating_point() else value.dtype
        return value.to(p.device, dtype, copy=True)
    return copy.deepcopy(value)
