"""Ops whose values a NumPy expression cannot predict, from their test hints:
`nondeterministic` ops are checked for shape, dtype, range and repeatability
under loom.manual_seed; `skip` ops are reported as skipped with the hint's
reason. And every op in the model has one of ref / skip / nondeterministic."""
import numpy as np
import pytest

import loom
from helpers import CATEGORY, ldt, op_id
from opinputs import MODEL

RANDOM = [op for op in MODEL.ops if op.test.get("nondeterministic")]
SKIPPED = [op for op in MODEL.ops if op.test.get("skip")]
SIZE = (40, 50)


def _args(op, dtype=None):
    """Arguments building a SIZE result: sizes from `size`, or a `self` of that shape; low/high bounds."""
    args = {}
    for a in op.schema.args:
        if a.name in op.test.get("kwargs", {}):
            args[a.name] = op.test["kwargs"][a.name]
        elif a.name == "size":
            args[a.name] = SIZE
        elif a.type.base == "Tensor":
            args[a.name] = loom.zeros(SIZE, dtype=ldt(dtype or op.dtypes[0]))
        elif a.name == "low":
            args[a.name] = -3
        elif a.name == "high":
            args[a.name] = 4
        elif a.name == "dtype" and dtype is not None:
            args[a.name] = ldt(dtype)
    return args


def _draw(op, dtype=None):
    args = _args(op, dtype)
    pos = [args.pop(a.name) for a in op.schema.args if not a.kwonly and a.name in args]
    return getattr(loom, op.name)(*pos, **args)


def _family(op):
    """What distribution an op draws from, read from its schema and its name's PyTorch meaning."""
    if op.schema.arg("low") and op.schema.arg("high"):
        return "integers"
    return "normal" if op.name.startswith("randn") else "uniform"


def _default_dtype(op):
    if op.schema.arg("self"):
        return op.dtypes[0]   # *_like: the dtype of self
    return "int64" if _family(op) == "integers" else "float32"


@pytest.mark.parametrize("op", RANDOM, ids=op_id)
def test_shape_dtype_and_range(op):
    loom.manual_seed(0)
    x = _draw(op)
    assert tuple(x.shape) == SIZE
    assert x.dtype == ldt(_default_dtype(op))
    v = x.numpy().astype(np.float64)
    assert np.all(np.isfinite(v))
    family = _family(op)
    if family == "integers":
        assert v.min() == -3 and v.max() == 3 and np.all(v == np.round(v))   # [low, high), every value hit
    elif family == "uniform":
        assert 0 <= v.min() and v.max() < 1
        assert abs(v.mean() - 0.5) < 0.05 and abs(v.std() - 12 ** -0.5) < 0.03
    else:
        assert abs(v.mean()) < 0.1 and abs(v.std() - 1) < 0.1
    assert len(np.unique(v)) > (6 if family == "integers" else v.size // 2)


@pytest.mark.parametrize("op", RANDOM, ids=op_id)
def test_manual_seed_repeats_and_draws_differ(op):
    loom.manual_seed(1234)
    a, b = _draw(op), _draw(op)
    loom.manual_seed(1234)
    a2, b2 = _draw(op), _draw(op)
    np.testing.assert_array_equal(a.numpy(), a2.numpy())
    np.testing.assert_array_equal(b.numpy(), b2.numpy())
    assert not np.array_equal(a.numpy(), b.numpy()), "two draws after one seed must differ"
    loom.manual_seed(1235)
    assert not np.array_equal(_draw(op).numpy(), a.numpy()), "another seed must give other values"


@pytest.mark.parametrize("op", RANDOM, ids=op_id)
def test_every_supported_dtype(op):
    """Each dtype of op.dtypes gives that dtype; others (ints for rand, ...) raise a TypeError naming the op."""
    for dt in ("bool", "uint8", "int32", "int64", "float32", "float64"):
        supported = dt in op.dtypes and (CATEGORY[dt] == 2 or _family(op) == "integers")
        if not supported and op.schema.arg("self") and dt not in op.dtypes:
            continue   # a *_like op's dtype comes from self; an unsupported self is test_errors' business
        if supported and _family(op) == "integers" and not _holds(dt, -3, 3):
            # PyTorch: "from is out of bounds for unsigned char"; wrapping would break [low, high)
            with pytest.raises((ValueError, RuntimeError), match=rf"^{op.name}\(\): "):
                _draw(op, dt)
        elif supported:
            loom.manual_seed(2)
            x = _draw(op, dt)
            assert x.dtype == ldt(dt) and tuple(x.shape) == SIZE
            if _family(op) == "integers":
                v = x.numpy().astype(np.int64)
                assert v.min() >= -3 and v.max() < 4
        else:
            with pytest.raises(TypeError, match=rf"^{op.name}\(\): "):
                _draw(op, dt)


def _holds(dt, lo, hi):
    if dt.startswith("float"):
        return True
    info = (0, 1) if dt == "bool" else (np.iinfo(dt).min, np.iinfo(dt).max)
    return info[0] <= lo and hi <= info[1]


@pytest.mark.parametrize("op", SKIPPED, ids=op_id)
def test_skipped_by_hint(op):
    pytest.skip(op.test["skip"])


def test_every_op_has_a_test_hint():
    """An op with no ref, skip or nondeterministic hint would silently go untested."""
    missing = [op.schema.full_name for op in MODEL.ops
               if not ({"ref", "skip", "nondeterministic"} & set(op.test))]
    assert not missing


def test_seed_accepts_any_python_int():
    for seed in (0, 2 ** 64 - 1, -1, 2 ** 70):
        loom.manual_seed(seed)
        a = loom.rand(3)
        loom.manual_seed(seed)
        assert loom.rand(3).tolist() == a.tolist()
