"""functional_call and stack_module_state: a module's forward with parameters given as tensors."""
from .._ops import stack
from ..nn.module import Module


def _owner(module, name):
    *path, leaf = name.split(".")
    m = module
    for p in path:
        m = getattr(m, p)
    return m, leaf


def _swap(module, name, value):
    m, leaf = _owner(module, name)
    for store in ("_parameters", "_buffers"):
        d = m.__dict__.get(store)
        if d is not None and leaf in d:
            old = d[leaf]
            d[leaf] = value
            return store, m, leaf, old
    old = m.__dict__.get(leaf)
    m.__dict__[leaf] = value
    return "__dict__", m, leaf, old


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with its parameters and buffers replaced by the given tensors for the call."""
    if not isinstance(module, Module):
        raise TypeError(f"functional_call(): expected an nn.Module, got {type(module).__name__}")
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        merged = dict(dicts)
    else:
        merged = {}
        for d in dicts:
            for k, v in d.items():
                if k in merged:
                    raise ValueError(f"{k} appeared in multiple dictionaries; behavior of functional call is ambiguous")
                merged[k] = v
    known = dict(module.named_parameters(remove_duplicate=False))
    known.update(dict(module.named_buffers(remove_duplicate=False)))
    if strict:
        missing = sorted(set(known) - set(merged))
        unexpected = sorted(set(merged) - set(known))
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(type(module).__name__,
                                                                                 "\n\t".join(parts)))
    if tie_weights:   # a tensor shared under several names takes the value given for any of them
        by_id = {}
        for k, t in known.items():
            by_id.setdefault(id(t), []).append(k)
        for names in by_id.values():
            given = [n for n in names if n in merged]
            if given and len(names) > 1:
                vals = [merged[n] for n in given]
                if any(v is not vals[0] for v in vals[1:]):
                    raise ValueError(f"functional_call got multiple values for keys {given}, which are tied. "
                                     f"Consider using tie_weights=False")
                for n in names:
                    merged[n] = vals[0]
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    saved = [_swap(module, k, v) for k, v in merged.items()]
    try:
        return module(*args, **(kwargs or {}))
    finally:
        for store, m, leaf, old in reversed(saved):
            if store == "__dict__":
                if old is None:
                    m.__dict__.pop(leaf, None)
                else:
                    m.__dict__[leaf] = old
            else:
                m.__dict__[store][leaf] = old


def stack_module_state(models):
    """(params, buffers): each parameter and buffer of the (same-shaped) models stacked along a new dim 0;
    the stacked parameters are new leaves that require grad where the originals did."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    kinds = {type(m) for m in models}
    if len(kinds) != 1:
        raise RuntimeError(f"stack_module_state: Expected all models to be of the same class, got: {kinds}")

    def stacked(named, detach):
        out = {}
        for name, first in named(models[0]):
            t = stack([dict(named(m))[name].detach() for m in models])
            out[name] = t.requires_grad_() if detach and first.requires_grad else t
        return out
    params = stacked(lambda m: m.named_parameters(), True)
    buffers = stacked(lambda m: m.named_buffers(), False)
    return params, buffers
