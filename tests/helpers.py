"""Helpers shared by the model-driven tests (not fixtures): PyTorch's type
promotion written out from its documented rules, calling an op by its schema,
and picking ops out of the model by what they are."""
import numpy as np

import nnref
from codegen.dtypes import TABLE

import loom
from opinputs import MODEL, NUMPY_LACKS, TOL

DTYPES = tuple(d.name for d in TABLE.dtypes)
CATEGORY = {d.name: ("bool", "integral", "floating", "complex").index(d.category) for d in TABLE.dtypes}
# A Python number's dtype when it takes part in promotion (floats count as the default float)
SCALARS = {"bool": True, "int": 3, "float": 1.5}
SCALAR_DTYPE = {"bool": "bool", "int": "int64", "float": "float32"}


def ldt(name):
    """The loom dtype object of a dtype name."""
    return getattr(loom, "bool_" if name == "bool" else name)


class Refused(Exception):
    """A pair of dtypes PyTorch does not promote (uint16 beside int64); its message is PyTorch's."""


def promote_types(a, b):
    """torch.promote_types over loom's dtypes: dtypes.yaml's lattice (test_dtype_table checks it is PyTorch's)."""
    r = TABLE.promote(a, b)
    if r is None:
        raise Refused(TABLE.refused_message() % (TABLE[a].torch, TABLE[b].torch))
    return r


def result_type(operands):
    """PyTorch's result type of (dtype, kind) operands, kind one of 'dim', '0d', 'scalar'.

    Dimensioned tensors decide; 0-d tensors, then Python numbers, count only when
    they are of a higher category (bool < integral < floating < complex) than what decides
    (a complex one beside a floating decider: the complex of the decider's width)."""
    level = {}
    for dt, kind in operands:
        level[kind] = dt if kind not in level else promote_types(level[kind], dt)

    def combine(higher, lower):
        if higher is None or lower is None:
            return higher or lower
        if CATEGORY[higher] == 3:
            return higher
        if CATEGORY[lower] == 3:
            return TABLE.dtypes[TABLE.to_complex(higher)].name if CATEGORY[higher] == 2 else lower
        if CATEGORY[higher] == 2:
            return higher
        if higher == "bool" or CATEGORY[lower] == 2:
            return promote_types(higher, lower)
        return higher

    return combine(level.get("dim"), combine(level.get("0d"), level.get("scalar"))) or "float32"


def can_cast(src, dst):
    """torch.can_cast: no floating -> integral, no non-bool -> bool."""
    return not (CATEGORY[src] == 2 and CATEGORY[dst] < 2) and not (src != "bool" and dst == "bool")


def pointwise_dtypes(op, operands):
    """(compute dtype, result dtype) of a pointwise op over (dtype, kind) operands.
    A `promote: scalars` op's Scalar arguments (its test values) count as Python numbers; a `promote: values`
    op's first operand (where's condition) counts not at all."""
    if op.promote == "values":
        operands = list(operands)[1:]
    if op.promote == "scalars":
        for v in default_ctx(op).values():
            if isinstance(v, (bool, int, float)):
                kind = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float"
                operands = list(operands) + [(SCALAR_DTYPE[kind], "scalar")]
    compute = result_type(operands)
    if op.promote == "float" and CATEGORY[compute] < 2:
        compute = "float32"
    return compute, ("bool" if op.promote == "bool_out" else TABLE.to_real(compute) if op.real_out else compute)


def refusal(op, operands):
    """What an op's check (its kernel header's LM_PW_NAME_CHECK) says, before any dtype lookup, when it
    refuses (dtype, kind) operands whatever their values, as PyTorch does; None when it takes them."""
    dts = [dt for dt, _ in operands]
    if op.name == "sub" and "bool" in dts:
        return ("Subtraction, the `-` operator, with two bool tensors is not supported" if set(dts) == {"bool"}
                else "Subtraction, the `-` operator, with a bool tensor is not supported")
    return None


def reduction_dtype(op, in_dtype, dtype_arg=None):
    """Result dtype of a reduction, or None where the op needs dtype= (mean of ints)."""
    if dtype_arg is not None:
        return dtype_arg
    if op.reduce == "sum":
        return in_dtype if CATEGORY[in_dtype] >= 2 else "int64"
    if op.reduce == "bool":
        return "bool"
    if op.reduce == "float":
        return in_dtype if CATEGORY[in_dtype] >= 2 else None
    return in_dtype


def np_value(x, dtype):
    """A NumPy array (or Python number) converted for computing a reference in `dtype`."""
    return np.asarray(x).astype(dtype)


def ops(kind=None, n_inputs=None, variant=None, has_ref=None):
    """Ops of the model filtered by kind, number of Tensor inputs, variant, test hint."""
    out = []
    for op in MODEL.ops:
        if kind is not None and op.kind != kind:
            continue
        if n_inputs is not None and len([a for a in op.inputs if not a.type.is_list]) != n_inputs:
            continue
        if variant is not None and variant not in op.variants:
            continue
        if has_ref is not None and ("ref" in op.test and not op.test.get("skip")
                                    and not op.test.get("nondeterministic")) != has_ref:
            continue
        out.append(op)
    return out


def op_id(op):
    return op.schema.full_name


def unique_name(op):
    """True when the op's name has one overload, so keyword calls are unambiguous."""
    return len(MODEL.by_name()[op.name]) == 1


def function_kwargs(args):
    """Schema-named arguments as a function's keywords: its `self` is spelled `input` (PyTorch's)."""
    return {("input" if k == "self" else k): v for k, v in args.items()}


def call_function(op, args, **extra):
    """Call the op's function (or method when it has none) with schema-ordered args."""
    pos = [args[a.name] for a in op.schema.args if not a.kwonly and a.name in args]
    kw = {a.name: args[a.name] for a in op.schema.args if a.kwonly and a.name in args}
    if "function" in op.variants:
        return getattr(loom, op.name)(*pos, **kw, **extra)
    return getattr(pos[0], op.name)(*pos[1:], **kw, **extra)


def call_method(op, args, suffix=""):
    pos = [args[a.name] for a in op.schema.args if not a.kwonly and a.name in args]
    kw = {a.name: args[a.name] for a in op.schema.args if a.kwonly and a.name in args}
    return getattr(pos[0], op.name + suffix)(*pos[1:], **kw)


def default_ctx(op):
    """Values for an op's non-Tensor arguments: test hints, else the schema default."""
    out = {}
    for a in op.ctx_args:
        if a.name in op.test.get("kwargs", {}):
            out[a.name] = op.test["kwargs"][a.name]
        elif a.has_default:
            out[a.name] = a.default
    return out


def reference(op, env):
    """Evaluate the op's `test.ref` NumPy expression."""
    try:
        with np.errstate(all="ignore"):
            return eval(op.test["ref"], dict(env, np=np, ref=nnref))
    except TypeError:   # NumPy has no loop for this dtype (np.sign of bool, ...): compute in float64
        env = {k: v.astype(np.float64) if isinstance(v, np.ndarray) else v for k, v in env.items()}
        with np.errstate(all="ignore"):
            return eval(op.test["ref"], dict(env, np=np, ref=nnref))


def npv(t):
    """A loom tensor's values as a NumPy array (bfloat16, which NumPy lacks, as float32: exact)."""
    return (t.float() if t.dtype.numpy is None else t).numpy()


def np_dtype(name):
    """The NumPy dtype a reference for dtype `name` computes in (bfloat16: float32)."""
    return np.float32 if name in NUMPY_LACKS else np.dtype(name)


def assert_close(actual, expected, dtype_name, op=None, msg=""):
    """Compare a loom result to a NumPy reference at the tolerance of dtype_name."""
    got = npv(actual) if isinstance(actual, loom.Tensor) else np.asarray(actual)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, f"{msg}: shape {got.shape} != {expected.shape}"
    if got.dtype == bool and expected.dtype != bool:
        expected = expected != 0
    tol = tuple(TOL[dtype_name].values()) if dtype_name in TOL else (0, 0)
    if op is not None:
        tol = (op.test.get("rtol", tol[0]), op.test.get("atol", tol[1]))
        if dtype_name in ("float16", "bfloat16"):   # an op's own tolerance is for float32/64
            tol = tuple(max(a, b) for a, b in zip(tol, TOL[dtype_name].values()))
    if got.dtype.kind in "biu" and expected.dtype.kind == "f" and np.all(np.isfinite(expected)):
        expected = expected.astype(got.dtype)
    np.testing.assert_allclose(got, expected, rtol=tol[0], atol=tol[1], equal_nan=True, err_msg=msg)
