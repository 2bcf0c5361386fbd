"""Every op in ops.yaml with a `test.ref` hint, against NumPy: each supported
dtype, each layout, and each variant (function, method, in-place, out=,
operators). The cases come from the op model, not from a hand-written list."""
import operator

import numpy as np
import pytest

import loom
import nnref
from helpers import function_kwargs
from opinputs import LAYOUTS, MODEL, TOL, expected_dtype, make_inputs

TESTED = [op for op in MODEL.ops if "ref" in op.test and not op.test.get("skip")
          and not op.test.get("nondeterministic")]
CASES = [(op, dt, layout) for op in TESTED for dt in op.test.get("dtypes", op.dtypes)
         for layout in op.test.get("layouts", LAYOUTS)]
REDUCE_DIMS = [None, 0, -1, (0, 1)]


def _id(case):
    op, dt, layout = case
    return f"{op.schema.full_name}-{dt}-{layout}"


def reference(op, np_args):
    # float16 data: the reference in float32 (NumPy's float16 loops round every step)
    np_args = {k: v.astype(np.float32) if isinstance(v, np.ndarray) and v.dtype == np.float16 else
               [x.astype(np.float32) if isinstance(x, np.ndarray) and x.dtype == np.float16 else x for x in v]
               if isinstance(v, list) else v for k, v in np_args.items()}
    env = dict(np_args, np=np, ref=nnref)
    try:
        with np.errstate(all="ignore"):
            r = eval(op.test["ref"], env)
        if isinstance(r, (np.ndarray, np.generic)) and r.dtype == np.float16:   # NumPy's float for 8-bit ints; PyTorch's is float32
            env.update({k: v.astype(np.int16) for k, v in np_args.items()
                        if isinstance(v, np.ndarray) and v.dtype in (np.int8, np.uint8)})
            with np.errstate(all="ignore"):
                r = eval(op.test["ref"], env)
        return r
    except TypeError:   # NumPy lacks the loop for this dtype (np.sign on bool, ...): compute in float64
        env.update({k: v.astype(np.float64) for k, v in np_args.items() if isinstance(v, np.ndarray)})
        with np.errstate(all="ignore"):
            return eval(op.test["ref"], env)


def call(op, lm_args, **extra):
    if "function" in op.variants:
        fn = getattr(loom, op.name)
        if not op.schema.overload:
            return fn(**function_kwargs(lm_args), **extra)
        kw = {a.name: lm_args[a.name] for a in op.schema.args if a.kwonly}
        return fn(*_positional(op, lm_args), **kw, **extra)
    self = lm_args["self"]
    return getattr(self, op.name)(*_positional(op, lm_args)[1:], **extra)


def _positional(op, lm_args):
    return [lm_args[a.name] for a in op.schema.args if not a.kwonly] 


def check(actual, expected, dtype, op):
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected):
            check(a, e, None, op)
        return
    assert isinstance(actual, loom.Tensor)
    got = (actual.float() if actual.dtype.numpy is None else actual).numpy()   # bfloat16 through float32
    expected = np.asarray(expected)
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    tol = TOL.get(str(actual.dtype.name), dict(rtol=0, atol=0))
    tol = dict(rtol=op.test.get("rtol", tol["rtol"]), atol=op.test.get("atol", tol["atol"]))
    if actual.dtype.itemsize == 2 and actual.dtype.is_floating_point:   # an op's own tolerance is for float32/64
        tol = {k: max(v, TOL[actual.dtype.name][k]) for k, v in tol.items()}
    if got.dtype == bool and expected.dtype != bool:   # bool arithmetic is logical in loom, as in PyTorch
        expected = expected != 0
    if got.dtype.kind in "biu" and expected.dtype.kind == "f":
        expected = expected.astype(got.dtype) if np.all(np.isfinite(expected)) else expected
    np.testing.assert_allclose(got, expected, equal_nan=True, **tol)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_values(case):
    op, dtype, layout = case
    made = make_inputs(op, dtype, layout)
    if made is None:
        pytest.skip(f"layout {layout} does not apply to {op.schema.full_name}'s inputs")
    np_args, lm_args = made
    dims = REDUCE_DIMS if op.kind == "reduction" and op.schema.arg("dim") else [None]
    for dim in dims:
        if dim is not None:
            nd = np_args["self"].ndim
            if nd == 0 or (isinstance(dim, tuple) and nd < 2):
                continue
            np_args["dim"] = lm_args["dim"] = dim
        for keep in ([False, True] if "keepdim" in np_args else [None]):
            if keep is not None:
                np_args["keepdim"] = lm_args["keepdim"] = keep
            if dim is None and op.kind == "reduction" and op.test["ref"].count("axis=dim"):
                np_args["dim"] = None
            try:
                expected = reference(op, np_args)
            except ValueError:   # NumPy rejects the case (e.g. amax of an empty axis)
                with pytest.raises((ValueError, IndexError, RuntimeError)):
                    call(op, lm_args)
                continue
            actual = call(op, lm_args)
            check(actual, expected, dtype, op)
            want = expected_dtype(op, dtype)
            if want and not isinstance(actual, tuple):
                assert actual.dtype.name == want


def _variant_case(op):
    made = make_inputs(op, op.dtypes[-1], "contiguous")
    return made


VARIANT_OPS = [op for op in TESTED if op.kind != "composite" and ({"inplace", "out", "method"} & set(op.variants))]


@pytest.mark.parametrize("op", VARIANT_OPS, ids=lambda op: op.schema.full_name)
def test_variants_agree(op):
    made = _variant_case(op)
    if made is None:
        pytest.skip("no contiguous case")
    np_args, lm_args = made
    result = call(op, lm_args)
    if op.returns_tuple or op.mutating:
        return
    if "method" in op.variants:
        self = lm_args["self"]
        rest = {k: v for k, v in lm_args.items() if k != "self"}
        m = getattr(self, op.name)(*[rest[a.name] for a in op.schema.args[1:] if not a.kwonly],
                                   **{a.name: rest[a.name] for a in op.schema.args if a.kwonly})
        np.testing.assert_array_equal(m.numpy(), result.numpy())
    if "out" in op.variants:
        out = loom.empty(result.shape, dtype=result.dtype)
        r = getattr(loom, op.name)(**function_kwargs(lm_args), out=out)
        assert r is out
        np.testing.assert_array_equal(out.numpy(), result.numpy())
    if "inplace" in op.variants and result.dtype == lm_args["self"].dtype and result.shape == lm_args["self"].shape:
        self = lm_args["self"].clone()
        args = dict(lm_args, self=self)
        r = getattr(self, op.name + "_")(*[args[a.name] for a in op.schema.args[1:] if not a.kwonly],
                                          **{a.name: args[a.name] for a in op.schema.args if a.kwonly})
        assert r is self
        np.testing.assert_array_equal(self.numpy(), result.numpy())


BINARY = {"__add__": operator.add, "__sub__": operator.sub, "__mul__": operator.mul, "__truediv__": operator.truediv,
          "__pow__": operator.pow, "__mod__": operator.mod, "__floordiv__": operator.floordiv,
          "__eq__": operator.eq, "__ne__": operator.ne, "__lt__": operator.lt, "__le__": operator.le,
          "__gt__": operator.gt, "__ge__": operator.ge, "__and__": operator.and_, "__or__": operator.or_,
          "__xor__": operator.xor, "__matmul__": operator.matmul}
OPERATOR_CASES = [(op, d) for op in TESTED for d in op.operators]


@pytest.mark.parametrize("case", OPERATOR_CASES, ids=lambda c: f"{c[0].name}-{c[1]}")
def test_operators(case):
    op, dunder = case
    dtype = "float64" if "float64" in op.dtypes else op.dtypes[-1]
    np_args, lm_args = make_inputs(op, dtype, "contiguous")
    ins = [a.name for a in op.inputs]
    a = lm_args[ins[0]]
    want = call(op, {k: v for k, v in lm_args.items()})
    if len(ins) == 1:
        got = {"__neg__": operator.neg, "__abs__": operator.abs, "__invert__": operator.invert}[dunder](a)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        return
    b = lm_args[ins[1]]
    base = dunder.replace("__r", "__", 1) if dunder.startswith("__r") else dunder.replace("__i", "__", 1)
    want = call(op, {**lm_args, **{a.name: a.default for a in op.ctx_args if a.has_default}})
    fn = BINARY[base]
    if dunder.startswith("__i"):
        x = a.clone()
        y = x
        fn_i = {"__add__": operator.iadd, "__sub__": operator.isub, "__mul__": operator.imul,
                "__truediv__": operator.itruediv, "__pow__": operator.ipow, "__mod__": operator.imod,
                "__floordiv__": operator.ifloordiv, "__and__": operator.iand, "__or__": operator.ior,
                "__xor__": operator.ixor}[base]
        y = fn_i(y, b)
        assert y is x
        np.testing.assert_allclose(x.numpy(), want.numpy())
    elif dunder.startswith("__r") and base != "__rshift__":
        if op.name == "matmul":
            got = fn(a.numpy(), b)   # ndarray @ Tensor defers to Tensor.__rmatmul__
            np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-10)
        else:   # a Python number on the left; the op's other arguments take their defaults
            s = 2 if dtype != "bool" else True
            got = fn(s, b)
            defaults = {a.name: a.default for a in op.ctx_args if a.has_default}
            ref = reference(op, dict(np_args, **defaults, **{ins[0]: np.asarray(s, dtype=dtype)}))
            np.testing.assert_allclose(got.numpy(), ref, rtol=1e-10)
    else:
        np.testing.assert_allclose(fn(a, b).numpy(), want.numpy())


# every dtype a composite lists is one its body serves (the values are test_values' and tools/dtype_coverage.py's)
SERVED_CASES = [(op, dt) for op in MODEL.ops if op.kind == "composite" and op.inputs and not op.test.get("skip")
                for dt in op.dtypes]


@pytest.mark.parametrize("case", SERVED_CASES, ids=lambda c: f"{c[0].schema.full_name}-{c[1]}")
def test_composite_serves_listed_dtype(case):
    op, dtype = case
    made = make_inputs(op, dtype, "contiguous")
    if made is None:
        pytest.skip(f"no sample inputs for {op.schema.full_name}")
    try:
        r = call(op, made[1])
    except (TypeError, ValueError, RuntimeError) as e:   # the sample's arguments may not suit every dtype
        if "not implemented for dtype" in str(e):       # (PyTorch's addr takes no float beta for ints): defaults do
            raise
        args = {a.name: made[1][a.name] if a.name not in op.test.get("kwargs", {}) or not a.has_default else a.default
                for a in op.schema.args}
        r = call(op, args)
    assert all(isinstance(t, loom.Tensor) for t in (r if isinstance(r, tuple) else (r,)))
