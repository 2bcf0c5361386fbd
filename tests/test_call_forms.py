"""NumPy's argument names PyTorch's parser also takes: axis= for dim=, keepdims= for keepdim=, on
every op with those arguments (generated: codegen/pygen.py's numpy_aliases), as functions, methods
and overloaded names; both at once is PyTorch's TypeError."""
import numpy as np
import pytest

import loom
from codegen import pygen
from helpers import function_kwargs, npv
from opinputs import MODEL, make_inputs

ALIASED = [op for op in MODEL.ops if pygen.numpy_aliases(op) and "ref" in op.test and not op.test.get("skip")
           and not op.test.get("nondeterministic") and "function" in op.variants]


def _dim_value(op, args):
    a = op.schema.arg("dim")
    if a.name in args and args[a.name] not in (None, [], ()):
        return args[a.name]
    return [0] if a.type.is_list else 0


@pytest.mark.parametrize("op", ALIASED, ids=lambda op: op.schema.full_name)
def test_axis_and_keepdims_stand_for_dim_and_keepdim(op):
    made = make_inputs(op, "float64" if "float64" in op.dtypes else op.dtypes[-1], "contiguous")
    if made is None:
        pytest.skip("no contiguous case")
    _, args = made
    fn = getattr(loom, op.name)
    names = dict((a.name, al) for a, al in pygen.numpy_aliases(op))
    kw = function_kwargs({a.name: args[a.name] for a in op.schema.args})
    if "dim" in names:
        kw["dim"] = _dim_value(op, kw)
    if "keepdim" in names:
        kw["keepdim"] = True
    want = fn(**kw)
    alias_kw = {names.get(k, k): v for k, v in kw.items()}
    got = fn(**alias_kw)
    for g, w in zip(got if isinstance(got, tuple) else [got], want if isinstance(want, tuple) else [want]):
        np.testing.assert_array_equal(npv(g), npv(w))
    for a, al in pygen.numpy_aliases(op):   # the argument given a value of its own, and its alias too
        given = _not_default(a)
        with pytest.raises(TypeError, match=f"got multiple values for argument '{a.name}'"):
            fn(**dict(kw, **{a.name: given, al: given}))


def _not_default(a):
    """A value of argument a other than its default (a value equal to the default reads as not given)."""
    if a.type.base == "bool":
        return not a.default
    if a.type.is_list:
        return [0]
    return 0 if a.default != 0 else -1


def test_methods_and_overloads_take_them_as_torch():
    torch = pytest.importorskip("torch")
    x = np.arange(12.0).reshape(3, 4)
    lx, tx = loom.tensor(x), torch.tensor(x)
    for f in (lambda t: t.sum(axis=0), lambda t: t.mean(axis=1, keepdims=True), lambda t: t.amax(axis=0),
              lambda t: t.max(axis=1)[0], lambda t: t.argmax(axis=0), lambda t: t.cumsum(axis=1),
              lambda t: t.softmax(axis=0), lambda t: t.unsqueeze(axis=0), lambda t: t.std(axis=0)):
        np.testing.assert_allclose(f(lx).numpy(), f(tx).numpy())
    np.testing.assert_array_equal(loom.cat([lx, lx], axis=1).numpy(), torch.cat([tx, tx], axis=1).numpy())
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'dim'"):
        loom.softmax(lx)


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                                  "logical_not"])
def test_in_place_comparisons_write_ones_and_zeros_in_selfs_dtype(name):
    torch = pytest.importorskip("torch")
    for dt in ("float32", "int64"):
        a, b = np.array([0, 1, 2, 3]), np.array([1, 1, 0, 3])
        la, ta = loom.tensor(a).to(getattr(loom, dt)), torch.tensor(a).to(getattr(torch, dt))
        args = () if name == "logical_not" else (loom.tensor(b),)
        targs = () if name == "logical_not" else (torch.tensor(b),)
        r = getattr(la, name + "_")(*args)
        getattr(ta, name + "_")(*targs)
        assert r is la and la.dtype.name == dt
        np.testing.assert_array_equal(la.numpy(), ta.numpy())


@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like"])
def test_like_factories_take_dtype_device_and_requires_grad(name):
    x = loom.ones(2, 3, dtype=loom.float64)
    extra = (7,) if name == "full_like" else ()
    r = getattr(loom, name)(x, *extra, dtype=loom.float32, device="cpu", requires_grad=True)
    assert r.shape == x.shape and r.dtype == loom.float32 and r.device == loom.device("cpu")
    assert r.requires_grad and r.is_leaf
    plain = getattr(loom, name)(x, *extra)
    assert plain.dtype == loom.float64 and not plain.requires_grad
