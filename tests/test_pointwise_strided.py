"""Strided rows of every pointwise op (issue 17): the CPU runner runs a row of non-unit stride
through the op's contiguous loop over gathered blocks, so each strided form must give the
contiguous result bit for bit, and leave the elements between its own untouched. Rows are
long enough to take that path (several blocks of every dtype, and a part block)."""
import numpy as np
import pytest

import loom
from helpers import call_function
from opinputs import MODEL, input_hint, make_inputs, to_loom, values

N = 2501
OPS = [op for op in MODEL.ops if op.kind == "pointwise"]
CASES = [(op, dt) for op in OPS for dt in op.dtypes]


def _id(case):
    op, dt = case
    return f"{op.schema.full_name}-{dt}"


def bits(t):
    """What is compared: the stored values (bfloat16 through float32, which holds them exactly)."""
    return (t.float() if t.dtype.numpy is None else t).numpy()


def same(actual, expected):
    np.testing.assert_array_equal(bits(actual), bits(expected), strict=True)


def data(op, name, dtype, n, rng):
    kind = input_hint(op, name)[0]
    return to_loom(values((n,), "bool" if kind == "bool" else dtype, op.test.get("domain"), rng), dtype)


def strided_args(op, dtype):
    """The op's arguments with each Tensor a view of every other element of a 2N buffer, and
    the same values contiguous; None when the op's test inputs cannot be made."""
    made = make_inputs(op, dtype, "contiguous")
    if made is None:
        return None
    rng = np.random.default_rng(1)
    strided, dense = dict(made[1]), dict(made[1])
    for a in op.inputs:
        if made[1].get(a.name) is not None:
            strided[a.name] = data(op, a.name, dtype, 2 * N, rng)[::2]
            dense[a.name] = strided[a.name].contiguous()
    return strided, dense


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_strided_rows_match_contiguous(case):
    op, dtype = case
    made = strided_args(op, dtype)
    if made is None:
        pytest.skip(f"no test inputs for {op.schema.full_name}")
    strided, dense = made
    expected = call_function(op, dense)
    same(call_function(op, strided), expected)
    names = [a.name for a in op.inputs if strided.get(a.name) is not None]
    for name in names:   # one operand strided, the rest contiguous; one a single element
        same(call_function(op, dict(dense, **{name: strided[name]})), expected)
        if len(names) > 1:
            single = dense[name][:1].reshape(())
            want = call_function(op, dict(dense, **{name: single}))
            same(call_function(op, dict(strided, **{name: single})), want)
    if "out" in op.variants:
        buf = loom.zeros(2 * N, dtype=expected.dtype)
        call_function(op, strided, out=buf[::2])
        same(buf[::2], expected)
        assert not bits(buf[1::2]).any()
    first = strided[names[0]]
    if "inplace" in op.variants and expected.dtype == first.dtype:
        buf = loom.zeros(2 * N, dtype=first.dtype)
        buf[::2] = first
        args = dict(strided, **{names[0]: buf[::2]})
        getattr(buf[::2], op.name + "_")(*[args[a.name] for a in op.schema.args[1:] if not a.kwonly],
                                         **{a.name: args[a.name] for a in op.schema.args if a.kwonly})
        same(buf[::2], expected)
        assert not bits(buf[1::2]).any()
