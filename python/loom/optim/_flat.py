"""Flat state buffers for the fused optimizer step.

For one parameter group, every tensor state (exp_avg, momentum_buffer, ...) of
all parameters lives in one 1-d buffer; state[p][name] is a view into it, so
state_dict(), per-parameter access and the per-parameter fallback see ordinary
tensors while the fused step updates the whole group with one op. The step
counts are 0-d views into one float32 buffer, advanced by one op. Gradients
are copied into a flat buffer (one copy_ per parameter) before the update."""
from .._dtype import float32
from .._ops import zeros

__all__ = ["Flat", "try_build"]


class Flat:
    __slots__ = ("params", "states", "names", "bufs", "views", "grad", "grad_views", "tmp", "steps",
                 "step_views", "fresh", "_by_id")

    def valid(self, params, state, names):
        """Whether this group can still take the fused step: same parameters, all with gradients, and
        state entries still the views handed out (a load_state_dict or a user assignment replaces them)."""
        if names != self.names or len(params) != len(self.params):
            return False
        views, step_views = self.views, self.step_views
        for i, p in enumerate(params):
            st = self.states[i]
            if p is not self.params[i] or p.grad is None or state.get(p) is not st:
                return False
            if step_views is not None and st.get("step") is not step_views[i]:
                return False
            for n in names:
                if st.get(n) is not views[n][i]:
                    return False
        return True

    def views_of(self, buf):
        return self._by_id[id(buf)]


def _split(buf, params):
    out, o = [], 0
    for p in params:
        k = p.numel()
        out.append(buf.narrow(0, o, k).view(tuple(p.shape)))
        o += k
    return out


def try_build(params, state, names, counts_steps):
    """A Flat for these parameters, or None when the group cannot take the fused step now (a missing
    gradient, mixed or non-float dtypes, or state that is partly initialised or at different steps)."""
    dtype, device = params[0].dtype, params[0].device
    for p in params:
        g = p.grad
        if g is None or p.dtype is not dtype or g.dtype is not dtype or g.shape != p.shape:
            return None
        if p.device != device or g.device != device:   # one kernel reads them all
            return None
    if not dtype.is_floating_point:
        return None
    keys = (("step",) if counts_steps else ()) + tuple(names)
    states = [state[p] for p in params]
    empty = [not st for st in states]
    if not all(empty):
        if any(empty) or any(k not in st for st in states for k in keys):
            return None
        if counts_steps and len({float(st["step"]) for st in states}) != 1:
            return None
        for i, (p, st) in enumerate(zip(params, states)):
            for n in names:
                if tuple(st[n].shape) != tuple(p.shape):
                    raise ValueError(f"optimizer state '{n}' of parameter {i} has shape {tuple(st[n].shape)}, "
                                     f"but the parameter has shape {tuple(p.shape)}")

    f = Flat()
    n = sum(p.numel() for p in params)
    f.params, f.states, f.names, f.fresh = list(params), states, tuple(names), all(empty)
    f.bufs = {name: zeros(n, dtype=dtype, device=device) for name in names}
    f.views = {name: _split(buf, params) for name, buf in f.bufs.items()}
    f.grad, f.tmp = zeros(n, dtype=dtype, device=device), zeros(n, dtype=dtype, device=device)
    f.grad_views = _split(f.grad, params)
    f._by_id = {id(f.grad): f.grad_views, id(f.tmp): _split(f.tmp, params)}
    for name, buf in f.bufs.items():
        f._by_id[id(buf)] = f.views[name]
    f.steps = f.step_views = None
    if counts_steps:
        f.steps = zeros(len(params), dtype=float32)
        f.step_views = [f.steps[i] for i in range(len(params))]
    for i, st in enumerate(states):
        if counts_steps:
            if st:
                f.step_views[i].fill_(float(st["step"]))
            st["step"] = f.step_views[i]
        for name in names:
            if name in st:
                f.views[name][i].copy_(st[name])
            st[name] = f.views[name][i]
    return f
