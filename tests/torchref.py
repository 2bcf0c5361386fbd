"""PyTorch beside loom on the generated tests' sample inputs (tests/opinputs.py): the PyTorch
functions an op may be, one call of them in a given argument style, and the comparison of their
results with loom's. tools/dtype_coverage.py and tests/test_uint_dtypes.py both call through it."""
import numpy as np
import torch

import loom
from opinputs import TOL


def torch_dtype(name):
    return getattr(torch, name)


def to_torch(v):
    if isinstance(v, loom.Tensor):
        if v.dtype.numpy is None:   # bfloat16: through float32, which holds its values exactly
            return torch.from_numpy(v.float().numpy().copy()).to(torch_dtype(v.dtype.name))
        return torch.from_numpy(np.array(v.numpy(), copy=True))
    if isinstance(v, (list, tuple)):
        return type(v)(to_torch(x) for x in v)
    if isinstance(v, loom.dtype):
        return torch_dtype(v.name)
    return v


def torch_callables(op):
    """[(function, is_method)]: the PyTorch functions the op may be (its namespaces first)."""
    cands = [f"{m}.{n}" for m, n in op.python_module]
    cands += [f"nn.functional.{op.name}", op.name, f"special.{op.name}", op.name.lstrip("_")]   # _vander: vander
    if op.name.startswith("linalg_"):
        cands.append("linalg." + op.name[len("linalg_"):])
    out = []
    if "function" in op.variants:
        for c in cands:
            obj = torch
            for part in c.split("."):
                obj = getattr(obj, part, None)
                if obj is None:
                    break
            if obj is not None and callable(obj) and obj not in [f for f, _ in out]:
                out.append((obj, False))
    if hasattr(torch.Tensor, op.name):
        out.append((getattr(torch.Tensor, op.name), True))
    return out


def call(fn, op, args, method, style):
    """style "full": every argument as the schema orders it; "short": those equal to their default
    left out (PyTorch takes no None for some), the rest after a gap by name; "star": a Tensor list
    spread out (block_diag(*tensors))."""
    pos, kw, gap = [], {}, False
    for a in op.schema.args:
        v = args[a.name]
        if style != "full" and a.has_default and not isinstance(v, torch.Tensor) and (v is None or v == a.default):
            gap = True
            continue
        if style == "star" and a.type.base == "Tensor" and a.type.is_list:
            pos += list(v)
        elif a.kwonly or gap:
            kw[a.name] = v
        else:
            pos.append(v)
    return fn(pos[0], *pos[1:], **kw) if method else fn(*pos, **kw)


def flat(r):
    if isinstance(r, (tuple, list)):
        return [x for y in r for x in flat(y)]
    return [r]


def as_np(t):
    if isinstance(t, torch.Tensor):
        t = t.detach().resolve_conj()
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy(), str(t.dtype).replace("torch.", "")
    if isinstance(t, loom.Tensor):
        return (t.float() if t.dtype.numpy is None else t).numpy(), t.dtype.name
    return np.asarray(t), None


def compare(op, got, want, dt):
    """None when loom's result matches PyTorch's, else why not."""
    g, w = flat(got), flat(want)
    if len(g) != len(w):
        return f"{len(g)} results, PyTorch gives {len(w)}"
    for a, b in zip(g, w):
        (an, adt), (bn, bdt) = as_np(a), as_np(b)
        if bdt is not None and adt is not None and adt != bdt:
            return f"result dtype {adt}, PyTorch's {bdt}"
        if an.shape != bn.shape:
            return f"shape {an.shape}, PyTorch's {bn.shape}"
        if op.test.get("nondeterministic") or op.name in ("empty_like",):
            continue
        tol = dict(TOL.get(bdt or dt, dict(rtol=0, atol=0)))
        tol = {k: max(tol.get(k, 0), op.test.get(k, 0)) for k in ("rtol", "atol")}
        if tol["rtol"] == 0 and (bdt or "").startswith("float"):
            tol = TOL["float32"]
        wide = np.complex128 if "c" in (an.dtype.kind, bn.dtype.kind) else np.float64
        try:
            ok = np.allclose(an.astype(wide), bn.astype(wide), equal_nan=True, **tol)
        except (TypeError, ValueError) as e:
            return f"values not comparable: {e}"
        if not ok:
            return "values differ from PyTorch's"
    return None
