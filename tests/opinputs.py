"""Inputs for the generated op tests, built from each op's schema and test hints."""
import numpy as np

import loom
from codegen.model import load

from conftest import ROOT

MODEL = load(ROOT / "ops", ROOT / "native")
LAYOUTS = ("contiguous", "transposed", "broadcast", "zerodim", "empty")
# float16/bfloat16 ops round once (a composite once per part) against a reference in float32/64
TOL = {"float16": dict(rtol=1e-2, atol=4e-3), "bfloat16": dict(rtol=6e-2, atol=3e-2),
       "float32": dict(rtol=2e-5, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12),
       "complex64": dict(rtol=5e-5, atol=2e-5), "complex128": dict(rtol=1e-10, atol=1e-12)}
NUMPY_LACKS = {"bfloat16"}   # held in the tests as float32 arrays of bfloat16 values


def to_loom(arr, dtype):
    """A loom tensor of `dtype` with arr's values (arr: float32 for a dtype NumPy lacks)."""
    t = loom.tensor(arr)
    return t.to(getattr(loom, dtype)) if dtype in NUMPY_LACKS and t.dtype == loom.float32 else t


def values(shape, dtype, domain, rng):
    """Random data of a NumPy dtype name, respecting the op's input domain."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < (1.0 if domain in ("positive", "nonzero") else 0.5))
    if dtype.startswith("complex"):   # both parts drawn as a real input of the op's domain
        part = np.dtype(dtype).type(0).real.dtype.name
        return (values(shape, part, domain, rng) + 1j * values(shape, part, domain, rng)).astype(dtype)
    if dtype in NUMPY_LACKS:   # float32 values that bfloat16 holds exactly
        return to_loom(values(shape, "float32", domain, rng), dtype).float().numpy()
    if np.dtype(dtype).kind in "iu":
        unsigned = np.dtype(dtype).kind == "u"
        lo = 1 if domain in ("positive", "nonzero") else (0 if unsigned else -5)
        v = rng.integers(lo, 6, size=shape)
        if domain == "nonzero" and not unsigned:
            v = v * rng.choice([-1, 1], size=shape)
        return np.asarray(v).astype(dtype)
    if domain == "positive":
        v = rng.uniform(0.5, 2.0, shape)
    elif domain == "nonzero":
        v = rng.uniform(0.5, 2.0, shape) * rng.choice([-1, 1], size=shape)
    elif domain == "probability":
        v = rng.uniform(0.05, 0.95, shape)
    elif domain == "above_one":   # acosh's
        v = rng.uniform(1.2, 3.0, shape)
    elif domain == "unit":
        v = rng.uniform(-0.9, 0.9, shape)
    else:
        v = rng.standard_normal(shape) * 2
    return np.asarray(v).astype(dtype)


def input_hint(op, name):
    """(kind, shape) from an `inputs` hint: a shape list, a kind (`bool`, or `index`: int64 values
    in [0, n) for n the smallest nonzero size of the first Tensor input), or {kind: .., shape: ..}."""
    h = op.test.get("inputs", {}).get(name)
    if isinstance(h, dict):
        return h.get("kind"), h.get("shape")
    return (None, h) if isinstance(h, list) else (h, None)


def left_out(op, name):
    """`inputs: {name: null}`: an optional Tensor argument passed as None."""
    hints = op.test.get("inputs", {})
    return name in hints and hints[name] is None


def shapes_for(op, layout):
    """(shape per tensor input, whether to transpose it)."""
    ins = [a.name for a in op.inputs if not a.type.is_list]
    out = {}
    for i, name in enumerate(ins):
        if left_out(op, name):
            continue
        fixed = input_hint(op, name)[1]
        if fixed is not None:
            shape = tuple(fixed)
            if layout in ("broadcast", "zerodim", "empty"):
                return None   # explicit shapes (matmul, ...) only in the dense layouts
            out[name] = (shape, layout == "transposed" and len(shape) >= 2)
            continue
        shape = {"contiguous": (3, 4), "transposed": (3, 4), "broadcast": (3, 4) if i == 0 else (1, 4),
                 "zerodim": (), "empty": (0, 4)}[layout]
        out[name] = (shape, layout == "transposed")
    return out


def make_inputs(op, dtype, layout, seed=0):
    """(numpy args, loom args) for one case, or None when the layout does not apply."""
    rng = np.random.default_rng(seed)
    shapes = shapes_for(op, layout)
    if shapes is None:
        return None
    domain = op.test.get("domain")
    first = next((shapes[a.name][0] for a in op.inputs if a.name in shapes), ())
    high = min([s for s in first if s > 0], default=1)

    def data(shape, name):
        kind = input_hint(op, name)[0]
        if kind == "index":
            return np.asarray(rng.integers(0, high, size=shape)).astype("int64")
        return values(shape, "bool" if kind == "bool" else dtype, domain, rng)

    np_args, lm_args = {}, {}
    for a in op.schema.args:
        if a.type.base == "Tensor" and a.type.is_list:
            arrs = [data((2, 3), a.name) for _ in range(2)]
            np_args[a.name], lm_args[a.name] = arrs, [to_loom(x, dtype) for x in arrs]
        elif a.type.base == "Tensor" and left_out(op, a.name):
            np_args[a.name] = lm_args[a.name] = None
        elif a.type.base == "Tensor":
            shape, transpose = shapes[a.name]
            if transpose:
                arr = data(shape[::-1], a.name).T
            else:
                arr = data(shape, a.name)
            t = to_loom(np.ascontiguousarray(arr.T), dtype).T if transpose else to_loom(arr, dtype)
            np_args[a.name], lm_args[a.name] = arr, t
        elif a.name in op.test.get("kwargs", {}):
            v = op.test["kwargs"][a.name]
            np_args[a.name] = lm_args[a.name] = v
        elif a.type.base == "ScalarType" and not a.type.optional:
            np_args[a.name], lm_args[a.name] = np.dtype("float64"), loom.float64
        elif a.name == "dims" and a.type.is_list:
            nd = np_args["self"].ndim
            np_args[a.name] = lm_args[a.name] = list(range(nd))[::-1]
        elif a.name == "size" and a.type.is_list and "self" in np_args:
            np_args[a.name] = lm_args[a.name] = [2] + list(np_args["self"].shape)
        elif a.has_default:
            np_args[a.name] = lm_args[a.name] = a.default
        else:
            return None
    return np_args, lm_args


def _floating(name):
    return getattr(loom, name).is_floating_point or getattr(loom, name).is_complex


def expected_dtype(op, in_dtype):
    if op.kind == "pointwise" and op.promote == "scalars":   # weak scalar bounds can raise the category
        vals = [v for v in op.test.get("kwargs", {}).values() if isinstance(v, (int, float))]
        if any(isinstance(v, float) for v in vals) and not _floating(in_dtype):
            return "float32"
        if in_dtype == "bool" and any(isinstance(v, int) and not isinstance(v, bool) for v in vals):
            return "int64"
        return in_dtype
    if op.kind == "pointwise" and op.real_out and in_dtype.startswith("complex"):
        return {"complex64": "float32", "complex128": "float64"}[in_dtype]
    if op.kind == "pointwise":
        return "bool" if op.promote == "bool_out" else in_dtype
    if op.kind == "reduction":
        return {"sum": in_dtype if _floating(in_dtype) else "int64", "keep": in_dtype,
                "bool": "bool", "float": in_dtype}[op.reduce]
    return None
