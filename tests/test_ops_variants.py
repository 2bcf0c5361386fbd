"""Every variant of every op agrees with its function, over each dtype and layout
the op supports: method, in-place (returns self, writes through views, refuses
casts PyTorch refuses), out= (contiguous and strided outputs, returned as
given), and the Python operators bound in ops.yaml with tensors, Python numbers
and NumPy arrays on either side."""
import operator

import numpy as np
import pytest

import loom
from helpers import SCALARS, call_function, call_method, can_cast, npv, ops
from opinputs import LAYOUTS, make_inputs, shapes_for

TESTED = ops(has_ref=True)


def _cases(variant):
    return [(op, dt, layout) for op in TESTED if variant in op.variants and "function" in op.variants
            for dt in op.dtypes for layout in op.test.get("layouts", LAYOUTS) if shapes_for(op, layout) is not None]


def _id(case):
    op, dt, layout = case
    return f"{op.schema.full_name}-{dt}-{layout}"


def _inputs(op, dt, layout):
    made = make_inputs(op, dt, layout)
    if made is None:
        pytest.skip(f"layout {layout} does not apply to {op.schema.full_name}'s fixed input shapes")
    return made[1]


def _want(op, args):
    """The function's result, or the exception it raises (then every variant must raise it too)."""
    try:
        return call_function(op, args)
    except (TypeError, ValueError, IndexError, RuntimeError) as e:
        return e


def _raises_like(err, fn, *a):
    with pytest.raises(type(err)) as got:
        fn(*a)
    assert str(got.value).split("(")[0].rstrip("_") == str(err).split("(")[0], (str(got.value), str(err))


def _same(a, b, what):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b), what
        for x, y in zip(a, b):
            _same(x, y, what)
        return
    assert isinstance(a, loom.Tensor), f"{what}: got {type(a).__name__}"
    assert a.dtype == b.dtype and a.shape == b.shape, f"{what}: {a.dtype}{tuple(a.shape)} vs {b.dtype}{tuple(b.shape)}"
    np.testing.assert_array_equal(npv(a), npv(b), err_msg=what)


@pytest.mark.parametrize("case", _cases("method"), ids=_id)
def test_method_matches_function(case):
    op, dt, layout = case
    args = _inputs(op, dt, layout)
    want = _want(op, args)
    if isinstance(want, Exception):
        return _raises_like(want, call_method, op, args)
    _same(call_method(op, args), want, f"{op.name} method vs function")


def _each(want, make):
    """make(w) for the result, or a tuple of them for a tuple result (out= takes a tuple there)."""
    return tuple(make(w) for w in want) if isinstance(want, tuple) else make(want)


def _flat(x):
    return x if isinstance(x, tuple) else (x,)


@pytest.mark.parametrize("case", _cases("out"), ids=_id)
def test_out_variant(case):
    op, dt, layout = case
    args = _inputs(op, dt, layout)
    want = _want(op, args)
    if isinstance(want, Exception):
        blank = (loom.empty(0),) * len(op.schema.returns) if op.returns_tuple else loom.empty(0)
        return _raises_like(want, lambda: call_function(op, args, out=blank))
    out = _each(want, lambda w: loom.full(w.shape, 7, dtype=w.dtype))
    ptrs = [o.data_ptr() for o in _flat(out)]
    r = call_function(op, args, out=out)
    assert all(a is b for a, b in zip(_flat(r), _flat(out))) and len(_flat(r)) == len(_flat(out)), \
        "out= must return the tensor(s) it was given"
    assert type(r) is type(want), "a tuple result keeps its named fields"
    assert [o.data_ptr() for o in _flat(out)] == ptrs, "out= of the right shape must not be reallocated"
    _same(out, want, f"{op.name}(out=contiguous)")
    empty = _each(want, lambda w: loom.empty(0, dtype=w.dtype))   # resized to the result, as PyTorch's out= is
    assert all(a is b for a, b in zip(_flat(call_function(op, args, out=empty)), _flat(empty)))
    _same(empty, want, f"{op.name}(out=empty)")
    for w, i in zip(_flat(want), range(len(_flat(want)))):
        if w.ndim >= 2:   # a transposed (non-contiguous) output writes through to its base
            base = loom.zeros(tuple(w.shape)[::-1], dtype=w.dtype)
            outs = list(_each(want, lambda v: loom.empty(0, dtype=v.dtype)) if isinstance(want, tuple) else [None])
            outs[i] = base.T
            r = call_function(op, args, out=tuple(outs) if isinstance(want, tuple) else base.T)
            np.testing.assert_array_equal(npv(base.T), npv(w))
            np.testing.assert_array_equal(npv(_flat(r)[i]), npv(w))


def test_out_refuses_a_graph():
    """out= does not record autograd, as PyTorch: refused when a result would need a gradient,
    for C-written, composite and tuple results alike."""
    x = loom.randn(3, 4, requires_grad=True)
    for call in (lambda: loom.exp(x, out=loom.empty(0)), lambda: loom.square(x, out=loom.empty(0)),
                 lambda: loom.max(x, 1, out=(loom.empty(0), loom.empty(0, dtype=loom.int64)))):
        with pytest.raises(RuntimeError, match=r"functions with out=\.\.\. arguments don't support automatic "
                                               r"differentiation"):
            call()
    idx = loom.argmax(x, 1, out=loom.empty(0, dtype=loom.int64))   # no gradient flows: allowed
    assert idx.dtype == loom.int64
    with loom.no_grad():
        assert loom.square(x, out=loom.empty(0)).shape == (3, 4)


def test_out_of_a_tuple_result_is_a_tuple():
    x = loom.randn(3, 4)
    with pytest.raises(TypeError, match=r"^cummax\(\): argument 'out' must be a tuple of 2 Tensors"):
        loom.cummax(x, 1, out=loom.empty(0))
    with pytest.raises(TypeError, match=r"^aminmax\(\): argument 'out' must be a tuple of 2 Tensors"):
        loom.aminmax(x, out=(loom.empty(0),))


def test_factory_out_takes_its_dtype():
    """torch.zeros(2, out=t) makes t's dtype: the factories' dtype= defaults to out's."""
    for make in (lambda o: loom.zeros(2, 3, out=o), lambda o: loom.ones(2, 3, out=o),
                 lambda o: loom.full((2, 3), 4, out=o), lambda o: loom.empty(2, 3, out=o),
                 lambda o: loom.rand(2, 3, out=o), lambda o: loom.randint(0, 5, (2, 3), out=o)):
        o = loom.empty(0, dtype=loom.float64)
        assert make(o) is o and o.dtype == loom.float64 and o.shape == (2, 3)
    o = loom.empty(0, dtype=loom.int32)
    assert loom.arange(4, out=o) is o and o.tolist() == [0, 1, 2, 3]
    o = loom.empty(0, dtype=loom.int64)
    assert loom.randperm(5, out=o) is o and sorted(o.tolist()) == [0, 1, 2, 3, 4]


def _like(t, layout):
    """A fresh copy of t with t's memory layout (a transposed view stays a transposed view)."""
    if layout == "transposed" and t.ndim >= 2:
        base = t.T.clone()
        return base.T, base
    c = t.clone()
    return c, c


@pytest.mark.parametrize("case", _cases("inplace"), ids=_id)
def test_inplace_variant(case):
    op, dt, layout = case
    args = _inputs(op, dt, layout)
    if op.schema.arg("dtype") is not None:   # in place, a dtype= left out is self's (PyTorch's cumsum_)
        args = dict(args, dtype=args["self"].dtype)
    want = _want(op, args)
    if isinstance(want, Exception):
        return _raises_like(want, call_method, op, args, "_")
    self, base = _like(args["self"], layout)
    before = npv(self).copy()
    args = dict(args, self=self)
    if not can_cast(want.dtype.name, self.dtype.name):
        with pytest.raises(TypeError, match=rf"^{op.name}_\(\): result type {want.dtype.name} can't be cast "
                                            rf"to the desired output type {self.dtype.name}"):
            call_method(op, args, "_")
        np.testing.assert_array_equal(npv(self), before)   # a refused op writes nothing
        return
    if tuple(want.shape) != tuple(self.shape):
        with pytest.raises(ValueError, match=rf"^{op.name}_\(\): "):
            call_method(op, args, "_")
        return
    r = call_method(op, args, "_")
    assert r is self, "an in-place method returns self"
    np.testing.assert_array_equal(npv(self), npv(want.to(self.dtype)))
    if base is not self:
        np.testing.assert_array_equal(npv(base.T), npv(self))


# ---- Python operators


def _kind(dunder):
    plain = "__" + dunder[3:]
    if dunder.startswith("__i") and dunder != "__invert__" and hasattr(operator, plain):
        return "inplace", getattr(operator, dunder)
    if dunder.startswith("__r") and not hasattr(operator, dunder) and hasattr(operator, plain):
        return "reflected", getattr(operator, plain)
    return "forward", getattr(operator, dunder)


OPERATOR_CASES = [(op, d, dt) for op in TESTED for d in op.operators for dt in op.dtypes]


def _operands(op, dt, layout="contiguous"):
    args = _inputs(op, dt, layout)
    names = [a.name for a in op.inputs]
    return args, names


def _fn(op, *tensors, **kw):
    """The function with the op's schema defaults (operators pass no alpha=...)."""
    args = {a.name: a.default for a in op.ctx_args if a.has_default}
    args.update(zip([a.name for a in op.inputs], tensors))
    return call_function(op, dict(args, **kw))


@pytest.mark.parametrize("case", OPERATOR_CASES, ids=lambda c: f"{c[0].name}-{c[1]}-{c[2]}")
def test_operator_matches_function(case):
    op, dunder, dt = case
    kind, fn = _kind(dunder)
    for layout in ("contiguous", "transposed"):
        args, names = _operands(op, dt, layout)
        x = args[names[0]]
        if len(names) == 1:
            _same(fn(x), _fn(op, x), f"{dunder} on {dt}")
            continue
        y = args[names[1]]
        others = [y] if op.name == "matmul" else [y] + list(SCALARS.values())
        for other in others:
            what = f"{dunder}({dt} tensor, {other if not isinstance(other, loom.Tensor) else 'tensor'})"
            # (an ndarray on the left; bfloat16 has none: the tensor stands there)
            left, right = ((npv(x) if x.dtype.numpy is not None else x), other) if isinstance(other, loom.Tensor) \
                else (other, x)
            try:   # an operand the op does not take (1.5 & int tensor): the operator must refuse it too
                want = _fn(op, x, other) if kind != "reflected" else \
                    _fn(op, x if isinstance(left, np.ndarray) else left, right)
            except TypeError:
                with pytest.raises(TypeError):
                    fn(x, other) if kind != "reflected" else fn(left, right)
                continue
            if kind == "forward":
                _same(fn(x, other), want, what)
            elif kind == "reflected":
                # a number or an ndarray on the left: the right operand's Tensor.__r*__ answers
                got = fn(left, right)
                assert isinstance(got, loom.Tensor), f"{what}: {type(got).__name__}"
                _same(got, want, what)
            else:
                _check_inplace_operator(op, fn, x, other, what)


def _check_inplace_operator(op, fn, x, other, what):
    want = _fn(op, x, other)
    target = x.clone()
    if not can_cast(want.dtype.name, target.dtype.name):
        with pytest.raises(TypeError, match=rf"^{op.name}_\(\): "):
            fn(target, other)
        return
    ref = target
    result = fn(target, other)
    assert result is ref, f"{what}: x op= y must rebind x to the same tensor"
    np.testing.assert_array_equal(npv(ref), npv(want.to(ref.dtype)), err_msg=what)


@pytest.mark.parametrize("op", [op for op in TESTED if any(_kind(d)[0] == "inplace" for d in op.operators)],
                         ids=lambda op: op.name)
def test_inplace_operator_on_a_view_writes_the_base(op):
    dunder = next(d for d in op.operators if _kind(d)[0] == "inplace")
    fn = _kind(dunder)[1]
    dt = "float64" if "float64" in op.dtypes else op.dtypes[-1]
    args, names = _operands(op, dt)
    base = args[names[0]].clone()
    row = base[1]
    want = _fn(op, row, args[names[1]][0])
    fn(row, args[names[1]][0])
    np.testing.assert_array_equal(npv(base[1]), npv(want))
    np.testing.assert_array_equal(npv(base[0]), npv(args[names[0]][0]))   # other rows untouched

