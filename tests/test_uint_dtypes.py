"""uint16, uint32 and uint64: PyTorch's barebones unsigned dtypes. The ops PyTorch serves
for them (creation, casts, joins, indexing, views, copies, &|^, *, ==, !=, where, sum/prod,
the float-promoting math) against PyTorch per dtype; the ops it refuses refused with the op
named; promotion (only with themselves and floats) as torch.promote_types/result_type;
NumPy and DLPack exchange without copies; and uint64's upper half (2^63 .. 2^64-1) through
every place Python ints enter and leave."""
import itertools
import re

import numpy as np
import pytest

import loom
from codegen import derivatives, docs, explain, model
from codegen.model import DTYPE_SETS
from codegen.pygen import dtype_checked
from conftest import ROOT
from helpers import call_function, op_id
from opinputs import MODEL, make_inputs

torch = pytest.importorskip("torch", reason="PyTorch is the reference these dtypes are checked against")
from torchref import call, compare, to_torch, torch_callables  # noqa: E402 - it needs PyTorch

UINTS = ("uint16", "uint32", "uint64")
ALL = [d.name for d in loom._dtype.BY_CODE]
BIG = 2 ** 64 - 1


def pair(dt, data=((1, 2, 3), (4, 5, 6))):
    return loom.tensor(data, dtype=getattr(loom, dt)), torch.tensor(data, dtype=getattr(torch, dt))


def run(fn, m, dt):
    """fn(m, x, y) on two tensors of dt in library m: (dtype name, values) or a list of them."""
    x = m.tensor([[1, 2, 3], [4, 5, 6]], dtype=getattr(m, dt))
    y = m.tensor([[6, 0, 3], [1, 7, 2]], dtype=getattr(m, dt))
    r = fn(m, x, y)
    if isinstance(r, (tuple, list)):
        return [(str(t.dtype).split(".")[-1], t.tolist()) for t in r]
    return str(r.dtype).split(".")[-1], r.tolist()


def _setitem(x, key, value):
    x[key] = value
    return x


SERVED = {
    "zeros": lambda m, x, y: m.zeros(2, 3, dtype=x.dtype),
    "ones": lambda m, x, y: m.ones(3, dtype=x.dtype),
    "full": lambda m, x, y: m.full((2,), 7, dtype=x.dtype),
    "full -1": lambda m, x, y: m.full((2,), -1, dtype=x.dtype),
    "zeros_like": lambda m, x, y: m.zeros_like(x),
    "ones_like": lambda m, x, y: m.ones_like(x),
    "full_like": lambda m, x, y: m.full_like(x, 4),
    "new_full": lambda m, x, y: x.new_full((2,), 3),
    "empty_like": lambda m, x, y: m.empty_like(x).fill_(2),
    "tensor": lambda m, x, y: m.tensor([[5, 6]], dtype=x.dtype),
    "tensor -1": lambda m, x, y: m.tensor([-1, 7], dtype=x.dtype) if x.dtype != m.uint64 else x,
    "to float32": lambda m, x, y: x.to(m.float32),
    "to float16": lambda m, x, y: x.half(),
    "to bfloat16": lambda m, x, y: x.to(m.bfloat16).float(),
    "to float64": lambda m, x, y: x.double(),
    "to int64": lambda m, x, y: x.long(),
    "to uint8": lambda m, x, y: (x * 100).to(m.uint8),
    "to bool": lambda m, x, y: y.bool(),
    "to complex64": lambda m, x, y: x.to(m.complex64),
    "from float": lambda m, x, y: m.tensor([1.5, 2.7, 0.0, 65535.0]).to(x.dtype),
    "from negative float": lambda m, x, y: m.tensor([-1.0, -3.7]).to(x.dtype),
    "from negative int": lambda m, x, y: m.tensor([-1, -2]).to(x.dtype),
    "from bool": lambda m, x, y: m.tensor([True, False]).to(x.dtype),
    "from another uint": lambda m, x, y: x.to(m.uint32 if x.dtype != m.uint32 else m.uint64).to(x.dtype),
    "cat": lambda m, x, y: m.cat([x, y], 1),
    "stack": lambda m, x, y: m.stack([x, y]),
    "hstack": lambda m, x, y: m.hstack([x, y]),
    "vstack": lambda m, x, y: m.vstack([x, y]),
    "int": lambda m, x, y: x[1],
    "slice": lambda m, x, y: x[:, 1:],
    "none, ellipsis": lambda m, x, y: x[None, ..., 0],
    "index tensor": lambda m, x, y: x[m.tensor([1, 0, 1])],
    "bool mask": lambda m, x, y: x[m.tensor([[True, False, True], [False, True, True]])],
    "setitem number": lambda m, x, y: _setitem(x, (0, 1), 9),
    "setitem tensor": lambda m, x, y: _setitem(x, 0, y[1]),
    "view": lambda m, x, y: x.view(3, 2),
    "reshape": lambda m, x, y: x.t().reshape(-1),
    "t": lambda m, x, y: x.t(),
    "permute": lambda m, x, y: x.permute(1, 0),
    "transpose": lambda m, x, y: x.transpose(0, 1),
    "squeeze": lambda m, x, y: x[None].squeeze(0),
    "unsqueeze": lambda m, x, y: x.unsqueeze(1),
    "expand": lambda m, x, y: x[0].expand(2, 3),
    "flatten": lambda m, x, y: x.flatten(),
    "ravel": lambda m, x, y: x.t().ravel(),
    "narrow": lambda m, x, y: x.narrow(1, 1, 2),
    "select": lambda m, x, y: x.select(1, 2),
    "diagonal": lambda m, x, y: x.diagonal(),
    "unfold": lambda m, x, y: x.unfold(1, 2, 1),
    "as_strided": lambda m, x, y: x.as_strided((2, 2), (1, 2)),
    "movedim": lambda m, x, y: x.movedim(0, 1),
    "swapaxes": lambda m, x, y: x.swapaxes(0, 1),
    "broadcast_to": lambda m, x, y: x[0].broadcast_to((2, 3)),
    "unflatten": lambda m, x, y: x.flatten().unflatten(0, (3, 2)),
    "split": lambda m, x, y: x.split(1),
    "chunk": lambda m, x, y: x.chunk(3, 1),
    "unbind": lambda m, x, y: x.unbind(),
    "clone": lambda m, x, y: x.clone(),
    "contiguous": lambda m, x, y: x.t().contiguous(),
    "copy_": lambda m, x, y: x.copy_(y.t().t()),
    "copy_ from float": lambda m, x, y: x.copy_(y.double()),
    "fill_": lambda m, x, y: x.fill_(9),
    "zero_": lambda m, x, y: x.zero_(),
    "repeat": lambda m, x, y: x.repeat(2, 1),
    "tile": lambda m, x, y: x.tile((1, 2)),
    "roll": lambda m, x, y: x.roll(1, 1),
    "narrow_copy": lambda m, x, y: x.narrow_copy(1, 0, 2),
    "conj": lambda m, x, y: x.conj(),
    "real": lambda m, x, y: x.real,
    "and": lambda m, x, y: x & y,
    "or": lambda m, x, y: x | y,
    "xor": lambda m, x, y: x ^ y,
    "and number": lambda m, x, y: x & 3,
    "mul": lambda m, x, y: x * y,
    "mul number": lambda m, x, y: x * 3,
    "mul negative number": lambda m, x, y: x * -1,
    "mul float": lambda m, x, y: x * 2.5,
    "mul 0-d int64": lambda m, x, y: x * m.tensor(3),
    "mul 0-d float": lambda m, x, y: x * m.tensor(2.5),
    "mul float tensor": lambda m, x, y: x * y.float(),
    "mul_": lambda m, x, y: x.mul_(y),
    "mul wraps": lambda m, x, y: m.full((2,), 60000, dtype=x.dtype) * m.full((2,), 60000, dtype=x.dtype),
    "eq": lambda m, x, y: x == y,
    "eq number": lambda m, x, y: x == 2,
    "ne": lambda m, x, y: x != y,
    "where": lambda m, x, y: m.where(m.tensor([True, False, True]), x, y),
    "where number": lambda m, x, y: m.where(m.tensor([True, False, True]), x, 0),
    "true divide": lambda m, x, y: x / 2,
    "exp": lambda m, x, y: x.exp(),
    "sqrt": lambda m, x, y: x.sqrt(),
    "floor": lambda m, x, y: x.floor(),
    "round": lambda m, x, y: x.round(),
    "nan_to_num": lambda m, x, y: x.nan_to_num(),
    "isnan": lambda m, x, y: x.isnan(),
    "isinf": lambda m, x, y: x.isinf(),
    "signbit": lambda m, x, y: x.signbit(),
    "sum": lambda m, x, y: x.sum(),
    "sum dim": lambda m, x, y: x.sum(1),
    "prod": lambda m, x, y: x.prod(0),
    "all": lambda m, x, y: y.all(1),
    "any": lambda m, x, y: y.any(),
    "nansum": lambda m, x, y: x.nansum(),
    "logsumexp": lambda m, x, y: m.logsumexp(x, 1),
    "float_power": lambda m, x, y: m.float_power(x, y),
    "clamp_min float": lambda m, x, y: m.clamp_min(x, 2.5),
    "count_nonzero dim": lambda m, x, y: m.count_nonzero(y, 1),
    "kron": lambda m, x, y: m.kron(x, y),
    "outer": lambda m, x, y: m.outer(x[0], y[1]),
    "block_diag": lambda m, x, y: m.block_diag(x, y),
    "repeat_interleave": lambda m, x, y: x.repeat_interleave(2, 1),
    "repeat_interleave tensor": lambda m, x, y: x.repeat_interleave(m.tensor([2, 0]), 0),
    "sort": lambda m, x, y: y.sort(1),
    "sort descending": lambda m, x, y: y.sort(0, descending=True),
    "argsort": lambda m, x, y: y.argsort(dim=1, stable=True),
    "msort": lambda m, x, y: y.msort(),
    "unique": lambda m, x, y: m.unique(y, return_inverse=True, return_counts=True),
    "unique dim": lambda m, x, y: m.unique(m.cat([y, y]), dim=0),
    "unique_consecutive": lambda m, x, y: m.unique_consecutive(m.cat([y, y], 1), return_counts=True),
    "cumsum": lambda m, x, y: x.cumsum(1),
    "cumprod": lambda m, x, y: y.cumprod(0),
    "diag 1-d": lambda m, x, y: m.diag(x[0], -1),
    "diag 2-d": lambda m, x, y: m.diag(x, 1),
    "diag_embed": lambda m, x, y: m.diag_embed(x),
    "diagflat": lambda m, x, y: m.diagflat(x[1]),
    "isclose": lambda m, x, y: m.isclose(x, y, rtol=0.5, atol=1),
    "index_select": lambda m, x, y: x.index_select(1, m.tensor([2, 0])),
    "embedding": lambda m, x, y: m.nn.functional.embedding(m.tensor([1, 0, 1]), y),
    "flip outer dim": lambda m, x, y: x.flip(0),
    "flipud": lambda m, x, y: m.flipud(x),
    "vander": lambda m, x, y: m.linalg.vander(x[1]),
    "dropout eval": lambda m, x, y: m.nn.functional.dropout(x, 0.5, False),
    "dropout p 1": lambda m, x, y: m.nn.functional.dropout(x, 1.0, True),
    "mvlgamma": lambda m, x, y: x.mvlgamma(2),
}


@pytest.mark.parametrize("dt", UINTS)
@pytest.mark.parametrize("name", list(SERVED))
def test_served_op_matches_pytorch(name, dt):
    fn = SERVED[name]
    got, want = run(fn, loom, dt), run(fn, torch, dt)
    if name in ("exp", "sqrt", "logsumexp", "float_power", "mvlgamma"):   # float math: within a rounding of PyTorch's
        assert got[0] == want[0]
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    else:
        assert got == want


# PyTorch's refusals: the op loom names in its own
REFUSED = {
    "add": lambda m, x, y: x + y,
    "sub": lambda m, x, y: x - y,
    "neg": lambda m, x, y: -x,
    "abs": lambda m, x, y: x.abs(),
    "remainder": lambda m, x, y: x % 2,
    "floor_divide": lambda m, x, y: x // y,
    "pow": lambda m, x, y: x ** 2,
    "bitwise_not": lambda m, x, y: ~x,
    "lt": lambda m, x, y: x < y,
    "ge": lambda m, x, y: x >= 2,
    "maximum": lambda m, x, y: m.maximum(x, y),
    "clamp": lambda m, x, y: x.clamp(1, 3),
    "max": lambda m, x, y: x.max(),
    "amax": lambda m, x, y: x.amax(),
    "argmax": lambda m, x, y: x.argmax(),
    "mean": lambda m, x, y: x.mean(),
    "sum": lambda m, x, y: x.sum(dtype=x.dtype),
    "matmul": lambda m, x, y: x @ y.t(),
    "nonzero": lambda m, x, y: x.nonzero(),
    "masked_fill": lambda m, x, y: x.masked_fill(m.tensor([True, False, True]), 0),
    "index_put_": lambda m, x, y: _setitem(x, m.tensor([0]), 9),
    "gather": lambda m, x, y: x.gather(1, m.tensor([[0], [1]])),
    "topk": lambda m, x, y: x.topk(1),
    "logical_not": lambda m, x, y: x.logical_not(),
    "flip": lambda m, x, y: x[0].flip(0),
    "clamp_min": lambda m, x, y: m.clamp_min(x, 2),
    "tril": lambda m, x, y: x.tril(),
    "arange": lambda m, x, y: m.arange(3, dtype=x.dtype),
    "linspace": lambda m, x, y: m.linspace(0, 1, 3, dtype=x.dtype),
    "eye": lambda m, x, y: m.eye(2, dtype=x.dtype),
    "randperm": lambda m, x, y: m.randperm(3, dtype=x.dtype),
    "cumsum": lambda m, x, y: x.cumsum(0, dtype=x.dtype),
    "cumprod": lambda m, x, y: x.long().cumprod(1, dtype=x.dtype),
    "cumsum_": lambda m, x, y: x.cumsum_(1),
    "count_nonzero": lambda m, x, y: m.count_nonzero(x),
    "index_select": lambda m, x, y: x[0].index_select(0, m.tensor([1])),
    "repeat_interleave": lambda m, x, y: x.repeat_interleave(m.tensor([1, 0, 2, 1, 1, 3])),
    "fliplr": lambda m, x, y: m.fliplr(x),
    "dropout": lambda m, x, y: m.nn.functional.dropout(x, 0.5, True),
    "igamma": lambda m, x, y: m.igamma(x, y),
    "tril_indices": lambda m, x, y: m.tril_indices(3, 3, dtype=x.dtype),
    "logspace": lambda m, x, y: m.logspace(0, 1, 3, dtype=x.dtype),
}


@pytest.mark.parametrize("dt", UINTS)
@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_op_names_itself(name, dt):
    """Where PyTorch has no kernel for them (NotImplementedError, a RuntimeError), loom raises a
    RuntimeError too, its message the op's name and the dtype."""
    fn = REFUSED[name]
    with pytest.raises(RuntimeError):
        run(fn, torch, dt)
    with pytest.raises(RuntimeError) as err:
        run(fn, loom, dt)
    msg = str(err.value)
    assert msg.startswith(f"{name}(): "), msg
    assert dt in msg or "Got: " in msg, msg


# ---- every op of ops/ against PyTorch, on the generated tests' samples ----
def _torch_result(op, args, as_dtype=None):
    """(True, result) of the first of PyTorch's functions and call forms that takes the sample (its
    uint tensors as as_dtype where given), else (False, the last refusal); None: no such function."""
    fns = torch_callables(op)
    if not fns:
        return None
    targs = {k: to_torch(v) for k, v in args.items()}
    if as_dtype is not None:
        targs = {k: [t.to(as_dtype) for t in v] if isinstance(v, list) and v and isinstance(v[0], torch.Tensor)
                 else v.to(as_dtype) if isinstance(v, torch.Tensor) and v.dtype in TORCH_UINTS else v
                 for k, v in targs.items()}
    err = None
    for fn, method in fns:
        for style in ("full", "short", "star"):
            try:
                torch.manual_seed(0)
                return True, call(fn, op, targs, method, style)
            except Exception as e:   # noqa: BLE001 - PyTorch's refusal, or a call form it does not take
                err = e
    return False, err


TORCH_UINTS = (torch.uint16, torch.uint32, torch.uint64)


@pytest.mark.parametrize("dt", UINTS)
@pytest.mark.parametrize("op", [op for op in MODEL.ops if op.inputs], ids=op_id)
def test_every_op_serves_them_where_pytorch_does(op, dt):
    """On the generated tests' sample in dt, loom's op serves it exactly where PyTorch's CPU function
    does, with PyTorch's result (dtype, shape, values: bit for bit for integers), and otherwise
    refuses it in an exception naming the op."""
    made = make_inputs(op, dt, "contiguous")
    if made is None:
        pytest.skip(f"no sample inputs for {op.schema.full_name}")
    args = made[1]
    a = dtype_checked(op) or op.inputs[0]
    x = args.get(a.name)
    x = x[0] if isinstance(x, list) and x else x
    if not isinstance(x, loom.Tensor) or x.dtype.name != dt:
        pytest.skip(f"the sample's {a.name} is int64 or bool whatever the dtype")
    want = _torch_result(op, args)
    if want is None:
        pytest.skip(f"PyTorch has no function {op.name}")
    try:
        got = call_function(op, args)
    except Exception as e:   # noqa: BLE001 - compared with PyTorch's answer below
        got = e
    if want[0]:
        if isinstance(got, Exception):
            raise got
        why = compare(op, got, want[1], dt)
        assert why is None, why
        return
    if not any(_torch_result(op, args, other)[0] for other in (torch.int64, torch.float32)):
        pytest.skip("PyTorch takes this sample in no dtype: its call is not loom's")
    assert isinstance(got, (RuntimeError, TypeError)), f"PyTorch refuses {dt} ({want[1]}), loom gives {got!r}"
    assert re.match(rf"{op.name}(\(\)|\.)", str(got)), str(got)


def _factory_args(op):
    args = {}
    for a in op.schema.args:
        if a.name in op.test.get("kwargs", {}):
            args[a.name] = op.test["kwargs"][a.name]
        elif a.name in ("size", "stride", "low", "high"):
            args[a.name] = {"size": [2, 3], "stride": [3, 1], "low": 0, "high": 5}[a.name]
    return args


@pytest.mark.parametrize("dt", UINTS)
@pytest.mark.parametrize("op", [op for op in MODEL.ops if not op.inputs and op.schema.arg("dtype")], ids=op_id)
def test_every_factory_makes_them_where_pytorch_does(op, dt):
    args = _factory_args(op)
    fn = getattr(torch, op.name)
    pos = [v for k, v in args.items() if not op.schema.arg(k).kwonly]
    try:
        want = fn(*pos, dtype=getattr(torch, dt))
    except RuntimeError as e:   # NotImplementedError included
        with pytest.raises(RuntimeError, match=rf"^{op.name}\(\): .*{dt}"):
            call_function(op, dict(args, dtype=getattr(loom, dt)))
        assert "not implemented" in str(e)
        return
    got = call_function(op, dict(args, dtype=getattr(loom, dt)))
    assert (got.dtype.name, got.shape) == (dt, tuple(want.shape))
    if not op.test.get("nondeterministic") and not op.name.startswith("empty"):
        assert got.tolist() == want.tolist()
    if op.name == "randint":
        assert all(0 <= v < 5 for v in got.flatten().tolist())


@pytest.mark.parametrize("dt", UINTS)
def test_flip_serves_them_in_the_layouts_pytorch_does(dt):
    """PyTorch flips them only where its copy moves whole rows: the innermost dim of the result unflipped
    and contiguous in self, or nothing to flip; loom's rule is the same over layouts and dims."""
    base = np.arange(24).reshape(2, 3, 4)
    views = {"contiguous": lambda m, t: t, "transposed": lambda m, t: t.transpose(0, 2),
             "strided": lambda m, t: t[:, :, ::2], "one column": lambda m, t: t[:, :, :1],
             "expanded": lambda m, t: t[:, :1].expand(2, 3, 4), "expanded inner": lambda m, t: t[:, :, :1].expand(2, 3, 4),
             "1-d": lambda m, t: t[0, 0], "one element": lambda m, t: t[0, 0, :1]}
    for name, view in views.items():
        lt = view(loom, loom.tensor(base).to(getattr(loom, dt)))
        tt = view(torch, torch.tensor(base).to(getattr(torch, dt)))
        for r in range(1, lt.ndim + 1):
            for dims in itertools.combinations(range(lt.ndim), r):
                try:
                    want = tt.flip(dims).tolist()
                except NotImplementedError:
                    with pytest.raises(RuntimeError, match=f"flip\\(\\): not implemented for dtype {dt}"):
                        lt.flip(dims)
                    continue
                assert lt.flip(dims).tolist() == want, (name, dims)


# ---- promotion ----
def _promoted(m, a, b):
    try:
        return str(m.promote_types(getattr(m, a), getattr(m, b))).split(".")[-1]
    except RuntimeError as e:
        return re.sub(r"^\w+\(\): ", "", str(e))


@pytest.mark.parametrize("dt", UINTS)
def test_promotion_rows_are_pytorchs(dt):
    for other in ALL:
        assert _promoted(loom, dt, other) == _promoted(torch, dt, other), other
        assert _promoted(loom, other, dt) == _promoted(torch, other, dt), other
    scalar_type = {"uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}[dt]
    assert _promoted(loom, dt, "int64") == ("Promotion for uint16, uint32, uint64 types is not supported, "
                                            f"attempted to promote {scalar_type} and Long")


@pytest.mark.parametrize("dt", UINTS)
def test_result_type_and_ops_promote_as_pytorch(dt):
    """Numbers and 0-d tensors of lower priority never promote with them; dimensioned tensors of
    another integral dtype, bool or complex are refused, by every op as by result_type."""
    for other in (1, 1.5, True, 1j, 2 ** 63, loom.tensor(3), loom.tensor(2.5)):
        t_other = torch.from_dlpack(other) if isinstance(other, loom.Tensor) else other
        want = torch.result_type(torch.ones(2, dtype=getattr(torch, dt)), t_other)
        assert loom.result_type(loom.ones(2, dtype=getattr(loom, dt)), other).name == str(want).split(".")[-1]
    for other in ALL:
        a, b = loom.ones(2, dtype=getattr(loom, dt)), loom.ones(2, dtype=getattr(loom, other))
        ta, tb = torch.ones(2, dtype=getattr(torch, dt)), torch.ones(2, dtype=getattr(torch, other))
        for fn in (lambda m, p, q: m.result_type(p, q), lambda m, p, q: (p * q).dtype,
                   lambda m, p, q: m.cat([p, q]).dtype):
            try:
                want = str(fn(torch, ta, tb)).split(".")[-1]
            except RuntimeError as e:
                with pytest.raises(RuntimeError, match=re.escape(str(e))):
                    fn(loom, a, b)
                continue
            assert str(fn(loom, a, b)).split(".")[-1] == want, other


def test_where_takes_its_condition_out_of_promotion():
    for dt in UINTS:
        got = loom.where(loom.tensor([True, False]), loom.tensor([1, 2], dtype=getattr(loom, dt)), 7)
        assert got.dtype.name == dt and got.tolist() == [1, 7]
    # whatever the condition's dtype, it takes no part in promotion
    assert loom.where(loom.tensor([1, 0], dtype=loom.uint8), loom.tensor([1, 2], dtype=loom.int8),
                      loom.tensor([3, 4], dtype=loom.int8)).dtype is loom.int8


# ---- the dtype objects and Python numbers ----
@pytest.mark.parametrize("dt", UINTS)
def test_dtype_object(dt):
    d, t = getattr(loom, dt), getattr(torch, dt)
    assert repr(d) == f"loom.{dt}" and d.itemsize == t.itemsize
    assert not d.is_floating_point and not d.is_complex and not d.is_signed
    assert d.numpy == np.dtype(dt)
    info = loom.iinfo(d)
    assert (info.bits, info.min, info.max) == (torch.iinfo(t).bits, torch.iinfo(t).min, torch.iinfo(t).max)
    x = loom.zeros(2, dtype=d)
    assert not x.is_floating_point() and repr(x) == f"tensor([0, 0], dtype=loom.{dt})"
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        x.requires_grad_(True)


@pytest.mark.parametrize("dt", UINTS)
def test_python_ints_in_and_out(dt):
    d, top = getattr(loom, dt), int(loom.iinfo(getattr(loom, dt)).max)
    x = loom.tensor([0, top], dtype=d)
    assert x.tolist() == [0, top] and x[1].item() == top and int(x[1]) == top
    assert isinstance(x[1].item(), int) and float(x[1]) == float(top)
    assert loom.full((2,), top, dtype=d).tolist() == [top, top]
    assert loom.zeros(2, dtype=d).fill_(top).tolist() == [top, top]
    assert (x == top).tolist() == [False, True]
    for bad in (top + 1, -top - 1):   # PyTorch's range: narrower dtypes take negatives down to -max
        with pytest.raises(OverflowError, match=f"cannot be converted to (type )?{'u?int64' if top > 2 ** 32 else dt}"):
            loom.full((1,), bad, dtype=d)
    with pytest.raises(OverflowError, match=f"cannot be converted to type {dt}"):
        loom.tensor([top + 1], dtype=d)


def test_uint64_upper_half_round_trips():
    x = loom.tensor([BIG, 2 ** 63, 5], dtype=loom.uint64)
    assert x.tolist() == [BIG, 2 ** 63, 5]
    assert x[0].item() == BIG and x[1].item() == 2 ** 63
    assert x.numpy().tolist() == [BIG, 2 ** 63, 5]
    assert loom.full((2,), BIG, dtype=loom.uint64).tolist() == [BIG, BIG]
    assert loom.full((1,), -1, dtype=loom.uint64).tolist() == [BIG]   # as PyTorch: two's complement
    y = loom.zeros(3, dtype=loom.uint64)
    y.fill_(2 ** 63)
    y[1] = BIG
    assert y.tolist() == [2 ** 63, BIG, 2 ** 63]
    assert (x == BIG).tolist() == [True, False, False]
    assert (loom.tensor([1, 3], dtype=loom.uint64) * 2 ** 63).tolist() == [2 ** 63, 2 ** 63]   # wraps
    assert (x & BIG).tolist() == x.tolist()
    assert x.double().tolist() == torch.tensor([BIG, 2 ** 63, 5], dtype=torch.uint64).double().tolist()
    f = torch.tensor([1.8e19, 2.0 ** 63, -1.0, -3.7], dtype=torch.float64)
    assert loom.tensor(f.numpy()).to(loom.uint64).tolist() == f.to(torch.uint64).tolist()


def test_uint64_upper_half_orders_and_sums_as_pytorch():
    """2^63 and up sort above every smaller value (unsigned order), and cumsum/cumprod's int64 results
    wrap them as PyTorch's do."""
    vals = [BIG, 1, 2 ** 63, 5, 2 ** 63 - 1, 0, BIG]
    x, t = loom.tensor(vals, dtype=loom.uint64), torch.tensor(vals, dtype=torch.uint64)
    for fn in (lambda v: v.sort(descending=True), lambda v: v.argsort(stable=True), lambda v: v.msort(),
               lambda v: v.unique(return_inverse=True, return_counts=True), lambda v: v.cumsum(0),
               lambda v: v.cumprod(0), lambda v: v.reshape(7, 1).unique(dim=0)):
        got, want = fn(x), fn(t)
        as_lists = (lambda r: [u.tolist() for u in r] if isinstance(r, tuple) else r.tolist())
        assert as_lists(got) == as_lists(want)


def test_python_ints_past_int64_elsewhere_follow_pytorch():
    """2^63 .. 2^64-1 is uint64's alone: int64 refuses it, floats take it, narrower integers wrap it
    as a weak operand, and a tensor of such ints needs dtype=uint64."""
    for m in (loom, torch):
        with pytest.raises(RuntimeError, match="cannot be converted to type int64"):
            m.full((1,), 2 ** 63)
    assert (loom.tensor([3.0]) * 2 ** 63).tolist() == (torch.tensor([3.0]) * 2 ** 63).tolist()
    assert (loom.tensor([3]) * 2 ** 63).tolist() == (torch.tensor([3]) * 2 ** 63).tolist()
    assert (loom.tensor([3], dtype=loom.uint8) + 2 ** 63).tolist() == [3]
    with pytest.raises(ValueError, match="pass dtype=loom.uint64"):
        loom.tensor([2 ** 63])
    with pytest.raises(OverflowError, match="cannot be converted to type uint64"):
        loom.tensor([-1], dtype=loom.uint64)
    with pytest.raises(OverflowError):
        loom.full((1,), 2 ** 64, dtype=loom.uint64)


# ---- NumPy and DLPack, without copies ----
@pytest.mark.parametrize("dt", UINTS)
def test_numpy_round_trip_shares_memory(dt):
    a = np.array([[1, 2], [3, BIG if dt == "uint64" else 4]], dtype=dt)
    x = loom.from_numpy(a)
    assert x.dtype is getattr(loom, dt) and x.tolist() == a.tolist()
    x[0, 0] = 7
    assert a[0, 0] == 7
    b = x.numpy()
    assert b.dtype == np.dtype(dt) and np.shares_memory(a, b)
    assert loom.as_tensor(a).data_ptr() == a.ctypes.data
    assert loom.tensor(a).dtype is getattr(loom, dt)


@pytest.mark.parametrize("dt", UINTS)
def test_dlpack_round_trip_shares_memory(dt):
    x, t = pair(dt)
    from_torch = loom.from_dlpack(t)
    assert from_torch.dtype is getattr(loom, dt) and from_torch.data_ptr() == t.data_ptr()
    to_torch = torch.from_dlpack(x)
    assert to_torch.dtype == getattr(torch, dt) and to_torch.data_ptr() == x.data_ptr()
    to_torch[0, 0] = 9
    assert x[0, 0].item() == 9
    assert np.from_dlpack(x).dtype == np.dtype(dt)


# ---- the table and the generated surface ----
def test_they_join_no_existing_dtype_set():
    for name, members in DTYPE_SETS.items():
        assert set(members) & set(UINTS) in (set(), set(UINTS)), name
    assert [n for n, s in DTYPE_SETS.items() if set(UINTS) <= set(s)] == ["barebones_unsigned"]


def test_explain_and_docs_show_the_dtypes():
    ops = model.load(ROOT / "ops", ROOT / "native")
    ders = derivatives.load(ROOT / "derivatives", ops)
    served = re.compile(r"dispatch: cpu x \{[^}]*uint16, uint32, uint64\}")
    assert served.search(explain.explain(ops, ders, "mul", ROOT / "native"))
    assert not served.search(explain.explain(ops, ders, "add", ROOT / "native"))
    text = docs.render(ops, ders, ROOT)
    assert "| dtypes | bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, " \
           "complex128, uint16, uint32, uint64 |" in text


@pytest.mark.skipif(not loom.cuda.is_available(), reason="no CUDA GPU on this machine (loom.cuda.is_available() is False)")
@pytest.mark.parametrize("dt", UINTS)
def test_on_cuda_as_on_the_cpu(dt):
    x = loom.tensor([[1, 2, 3], [4, 5, 6]], dtype=getattr(loom, dt))
    g = x.cuda()
    assert g.dtype is x.dtype and g.cpu().tolist() == x.tolist()
    for fn in (lambda t: t * t, lambda t: t == 2, lambda t: t & 6, lambda t: t.sum(1), lambda t: t.float() / 2,
               lambda t: t.t().contiguous(), lambda t: loom.cat([t, t])):
        assert fn(g).cpu().tolist() == fn(x).tolist()
    with pytest.raises(RuntimeError, match=f"add\\(\\): .*{dt}"):
        g + g
