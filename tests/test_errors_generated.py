"""Errors generated from the op model: every argument of every op given a value
of the wrong type, every dim argument out of range, every variant with
mismatched shapes, every out= of the wrong shape, every dtype an op does not
support and every in-place cast PyTorch refuses. Each raises the right
exception, and its message starts with the name the user called, once."""
import re

import numpy as np
import pytest

import loom
from helpers import (DTYPES, call_function, call_method, can_cast, ldt, op_id, pointwise_dtypes, reduction_dtype, refusal,
                     unique_name)
from opinputs import MODEL, make_inputs
from codegen.pygen import dtype_checked

WRONG = {"Tensor": "oops", "int": "oops", "Scalar": "oops", "bool": "oops", "ScalarType": "oops",
         "float": "oops", "Device": 3.5, "str": 3}


def _valid_args(op):
    """Valid arguments for one call of op: the generated test inputs, else small defaults."""
    for dt in reversed(op.dtypes):
        made = make_inputs(op, dt, "contiguous")
        if made is not None:
            return dict(made[1])
    args = {}
    for a in op.schema.args:
        if a.name in op.test.get("kwargs", {}):
            args[a.name] = op.test["kwargs"][a.name]
        elif a.type.is_list and a.type.base == "int":
            args[a.name] = [2, 3]
        elif a.name in ("low", "high"):
            args[a.name] = {"low": 0, "high": 5}[a.name]
        elif not a.has_default:
            return None
    return args


def _call(op, args):
    """The user's call: the function when the op has one, else the method on self."""
    if "function" in op.variants:
        return call_function(op, args)
    return call_method(op, args)


def assert_message(err, name):
    msg = str(err.value)
    assert msg.startswith(f"{name}(): ") or msg.startswith(f"{name}() received"), msg
    assert not msg.startswith(f"{name}(): {name}(): "), f"the op's name is prefixed twice: {msg}"


ARG_CASES = [(op, a) for op in MODEL.ops for a in op.schema.args
             if a.type.base in WRONG and not ("function" not in op.variants and a.name == "self")]


@pytest.mark.parametrize("case", ARG_CASES, ids=lambda c: f"{op_id(c[0])}-{c[1].name}")
def test_wrong_argument_type(case):
    op, arg = case
    args = _valid_args(op)
    assert args is not None, f"no valid call of {op_id(op)} to start from"
    args[arg.name] = WRONG[arg.type.base]
    with pytest.raises(TypeError) as err:
        _call(op, args)
    assert_message(err, op.name)
    if unique_name(op):   # overloaded names list the signatures instead (a function's self is `input`)
        assert f"'{'input' if arg.name == 'self' else arg.name}'" in str(err.value), str(err.value)


DEVICE_OPS = [op for op in MODEL.ops if op.schema.arg("device")]


@pytest.mark.parametrize("op", DEVICE_OPS, ids=op_id)
def test_bad_device_string(op):
    args = _valid_args(op)
    args["device"] = "tpu"
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda") as err:
        _call(op, args)
    assert_message(err, op.name)


DIM_NAMES = ("dim", "dim0", "dim1", "start_dim", "end_dim", "dims")
NOT_DIMS = {("tile", "dims")}   # tile's dims are repeat counts (PyTorch's name for them)
DIM_CASES = [(op, a) for op in MODEL.ops for a in op.schema.args
             if a.name in DIM_NAMES and a.type.base == "int" and (op.name, a.name) not in NOT_DIMS]


@pytest.mark.parametrize("case", DIM_CASES, ids=lambda c: f"{op_id(c[0])}-{c[1].name}")
@pytest.mark.parametrize("bad", [7, -8])
def test_dim_out_of_range(case, bad):
    op, arg = case
    args = _valid_args(op)
    if arg.type.is_list:
        n = len(args[arg.name]) if args.get(arg.name) is not None else 1
        args[arg.name] = [bad] + list(range(1, n))
    else:
        args[arg.name] = bad
    with pytest.raises(IndexError, match="Dimension out of range") as err:
        _call(op, args)
    assert_message(err, op.name)
    assert isinstance(err.value, RuntimeError)   # PyTorch code catches RuntimeError


MULTI_INPUT = [op for op in MODEL.ops if op.kind == "pointwise" and len(op.inputs) >= 2]
SHAPE_CASES = [(op, v) for op in MULTI_INPUT for v in op.variants]


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda c: f"{op_id(c[0])}-{c[1]}")
def test_mismatched_shapes_in_every_variant(case):
    op, variant = case
    args = _valid_args(op)
    names = [a.name for a in op.inputs]
    dt = args[names[-1]].dtype
    args[names[-1]] = loom.ones(5, dtype=dt)   # (3, 4) against (5,)
    with pytest.raises(ValueError, match=r"must match the size of tensor") as err:
        if variant == "function":
            call_function(op, args)
        elif variant == "method":
            call_method(op, args)
        elif variant == "inplace":
            call_method(op, args, "_")
        else:
            call_function(op, args, out=loom.empty(3, 4, dtype=dt))
    assert_message(err, op.name + ("_" if variant == "inplace" else ""))


OUT_OPS = [op for op in MODEL.ops if "out" in op.variants and op.test.get("ref")]


@pytest.mark.parametrize("op", OUT_OPS, ids=op_id)
def test_out_of_the_wrong_shape(op):
    args = _valid_args(op)
    want = call_function(op, args)
    first = want[0] if op.returns_tuple else want   # a tuple's out= is a tuple: the first one is wrong
    for shape in [(first.numel() + 3,), tuple(first.shape) + (2,)]:
        out = loom.zeros(shape, dtype=first.dtype)
        given = (out,) + tuple(loom.empty(0, dtype=w.dtype) for w in want[1:]) if op.returns_tuple else out
        with pytest.raises(ValueError) as err:
            call_function(op, args, out=given)
        assert_message(err, op.name)
        assert out.tolist() == loom.zeros(shape).tolist(), "a refused out= must not be written"
    # an overloaded op reports the whole call, as PyTorch's "invalid combination of arguments"
    with pytest.raises(TypeError, match="'out'|out=ndarray") as err:
        call_function(op, args, out=np.zeros(first.shape))
    assert_message(err, op.name)


# promote: scalars ops (clamp) take their compute dtype from the bounds too, so a float bound
# makes any input supported: they are covered by the promotion tests instead. A reduction's
# dtypes are those it accumulates in (sum of uint16: int64's loop)
DTYPE_CASES = [(op, dt, v) for op in MODEL.ops if op.kind in ("pointwise", "reduction") and op.promote != "scalars"
               for dt in DTYPES
               for v in op.variants
               if (pointwise_dtypes(op, [(dt, "dim")])[0] if op.kind == "pointwise" else reduction_dtype(op, dt))
               not in op.dtypes and not (op.kind == "reduction" and op.reduce == "float")]


@pytest.mark.parametrize("case", DTYPE_CASES, ids=lambda c: f"{op_id(c[0])}-{c[1]}-{c[2]}")
def test_unsupported_dtype_in_every_variant(case):
    """All inputs of a dtype outside op.dtypes (after promote: float) raise TypeError naming the op."""
    op, dt, variant = case
    args = _valid_args(op)
    for a in op.inputs:
        if op.test.get("inputs", {}).get(a.name) != "bool":
            args[a.name] = loom.ones(3, 4, dtype=ldt(dt))
    name = op.name + ("_" if variant == "inplace" else "")
    msg = refusal(op, [(dt, "dim")] * len(op.inputs)) or f"not implemented for dtype {dt}"
    with pytest.raises(TypeError, match=re.escape(msg)) as err:
        if variant == "function":
            call_function(op, args)
        elif variant == "out":
            call_function(op, args, out=loom.empty(3, 4, dtype=ldt(dt)))
        else:
            call_method(op, args, "_" if variant == "inplace" else "")
    assert_message(err, name)


# composites check their first Tensor argument (pygen.dtype_checked) against `dtypes:`, as a kernel checks its own
# (or, `dtype_check: body`, the body refuses them itself in PyTorch's words: their first Tensor argument's)
COMPOSITE_DTYPE_CASES = [(op, dt, v) for op in MODEL.ops if dtype_checked(op) is not None or op.dtype_check == "body"
                         for dt in DTYPES if dt not in op.dtypes
                         for v in ("function", "method", "inplace") if v in op.variants]


@pytest.mark.parametrize("case", COMPOSITE_DTYPE_CASES, ids=lambda c: f"{op_id(c[0])}-{c[1]}-{c[2]}")
def test_composite_refuses_unlisted_dtype(case):
    """A composite given a dtype outside its `dtypes:` raises what a kernel op raises, naming the op the user called."""
    op, dt, variant = case
    args = _valid_args(op)
    assert args is not None, f"no valid call of {op_id(op)} to start from"
    a = dtype_checked(op) or op.inputs[0]
    given = args.get(a.name)
    if a.type.is_list:
        args[a.name] = [t.to(ldt(dt)) for t in given]
    else:
        args[a.name] = loom.ones(3, 4, dtype=ldt(dt)) if given is None else given.to(ldt(dt))
    name = op.name + ("_" if variant == "inplace" else "")
    body = op.dtype_check == "body"
    want = None if body else re.escape(f"not implemented for dtype {dt}")
    with pytest.raises(RuntimeError if body else TypeError, match=want) as err:
        if variant == "function":
            call_function(op, args)
        else:
            call_method(op, args, "_" if variant == "inplace" else "")
    if body:   # PyTorch's own words may run on from the name ("quantile() input tensor must be ...")
        assert str(err.value).startswith(f"{name}()"), str(err.value)
    else:
        assert_message(err, name)
    assert isinstance(err.value, RuntimeError)   # as a kernel's refusal is


def _cast_cases():
    """In-place ops whose result dtype PyTorch's can_cast refuses to write into self."""
    cases = []
    for op in MODEL.ops:
        if "inplace" not in op.variants or op.kind != "pointwise":
            continue
        for self_dt in ("bool", "int64"):
            for other_dt in ("bool", "int64", "float32"):
                operands = [(self_dt, "dim")] + [(other_dt, "dim")] * (len(op.inputs) - 1)
                if refusal(op, operands):
                    continue   # refused before the cast (test_errors.py::test_sub_of_bool_tensors_is_refused)
                compute, result = pointwise_dtypes(op, operands)
                if compute in op.dtypes and not can_cast(result, self_dt):
                    cases.append((op, self_dt, other_dt, result))
                    break
    return cases


@pytest.mark.parametrize("case", _cast_cases(), ids=lambda c: f"{op_id(c[0])}-{c[1]}-{c[2]}")
def test_inplace_cast_refused(case):
    op, self_dt, other_dt, result = case
    args = _valid_args(op)
    args[op.inputs[0].name] = x = loom.ones(3, 4, dtype=ldt(self_dt))
    for a in op.inputs[1:]:
        args[a.name] = loom.ones(3, 4, dtype=ldt(other_dt))
    with pytest.raises(TypeError, match=re.escape(f"result type {result} can't be cast to the desired output "
                                                  f"type {self_dt}")) as err:
        call_method(op, args, "_")
    assert_message(err, op.name + "_")
    assert x.tolist() == loom.ones(3, 4, dtype=ldt(self_dt)).tolist()


@pytest.mark.parametrize("fn", [loom.argmax, loom.argmin], ids=lambda f: f.__name__)
def test_arg_reduction_of_empty_tensor(fn):
    with pytest.raises(IndexError, match="Expected reduction dim to be specified") as err:
        fn(loom.zeros(0, 3))
    assert_message(err, fn.__name__)
    assert fn(loom.zeros(0, 3), 1).shape == (0,)


def test_errors_leave_no_pending_state():
    """A failed call must not leak its error into the next, successful one."""
    with pytest.raises(ValueError):
        loom.add(loom.ones(2), loom.ones(3))
    assert (loom.ones(2) + 1).tolist() == [2.0, 2.0]
    with pytest.raises(IndexError):
        loom.ones(2).sum(5)
    assert loom.ones(2).sum().item() == 2.0
