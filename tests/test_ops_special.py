"""Edge values: NaN, infinities, signed zeros, inexact quotients and integer
extremes through every pointwise op and reduction with a NumPy reference, and
the semantics ops.yaml documents in words (Python's // and %, NaN propagation,
half-to-even rounding, integer division by zero raising)."""
import math

import numpy as np
import pytest

import loom
from helpers import assert_close, call_function, default_ctx, ldt, op_id, ops, reference

FLOAT_GRID = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.1, 0.3, -0.5, 0.5, 1.0, -1.0, 1.5, 2.5, -2.5, 7.0, -7.0,
              1e-30, 1e30]
INT_GRID = {"uint8": [0, 1, 2, 3, 7, 128, 255], "int32": [0, 1, -1, 2, -3, 7, -7, 2 ** 31 - 1, -2 ** 31],
            "int64": [0, 1, -1, 2, -3, 7, -7, 2 ** 53, -2 ** 53]}

POINTWISE = [op for op in ops(kind="pointwise", has_ref=True)]
FLOAT_CASES = [(op, dt) for op in POINTWISE for dt in ("float32", "float64") if dt in op.dtypes]
INT_CASES = [(op, dt) for op in POINTWISE for dt in INT_GRID if dt in op.dtypes]


def _grid_inputs(op, grid, dt):
    """Every pair (triple) of grid values: input k varies along axis k."""
    names = [a.name for a in op.inputs]
    n = len(grid)
    arrays = {}
    for k, name in enumerate(names):
        if op.test.get("inputs", {}).get(name) == "bool":
            arrays[name] = (np.arange(n) % 2 == 0).reshape([n if i == k else 1 for i in range(len(names))])
            continue
        shape = [n if i == k else 1 for i in range(len(names))]
        arrays[name] = np.asarray(grid).astype(dt).reshape(shape)
    return arrays


def _check_grid(op, dt, grid):
    arrays = _grid_inputs(op, grid, dt)
    args = dict(default_ctx(op), **{k: loom.tensor(v) for k, v in arrays.items()})
    try:
        expected = reference(op, dict(default_ctx(op), **arrays))
    except (ValueError, ZeroDivisionError) as e:
        pytest.skip(f"NumPy has no reference here: {e}")
    got = call_function(op, args)
    assert_close(got, expected, dt, op, f"{op.name} over {dt} edge values")


@pytest.mark.parametrize("case", FLOAT_CASES, ids=lambda c: f"{op_id(c[0])}-{c[1]}")
def test_float_edge_values(case):
    op, dt = case
    _check_grid(op, dt, FLOAT_GRID)


@pytest.mark.parametrize("case", INT_CASES, ids=lambda c: f"{op_id(c[0])}-{c[1]}")
def test_integer_edge_values(case):
    op, dt = case
    grid = INT_GRID[dt]
    if op.name == "pow":   # integer powers are exact (wrapping) but NumPy refuses negative exponents
        grid = [v for v in grid if v >= 0][:5]
    if op.test.get("domain") == "nonzero":   # integer division by zero raises (test_integer_division_by_zero_*)
        grid = [v for v in grid if v != 0]
    _check_grid(op, dt, grid)


REDUCTIONS = ops(kind="reduction", has_ref=True)


@pytest.mark.parametrize("op", REDUCTIONS, ids=op_id)
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_reductions_over_edge_values(op, dim):
    dt = "float64" if "float64" in op.dtypes else op.dtypes[-1]
    a = np.array([[1.0, np.nan, 3.0, -0.0], [np.inf, -np.inf, 2.0, 0.5], [1.0, 2.0, -1.0, np.inf]]).astype(dt)
    got = getattr(loom, op.name)(loom.tensor(a), dim)
    assert_close(got, reference(op, dict(self=a, dim=dim, keepdim=False)), dt, op, f"{op.name}(dim={dim})")


# ---- semantics stated in ops.yaml's docs


def test_floor_divide_is_pythons_floordiv():
    """ops.yaml: 'floor(self / other), as Python's //'. // is floor of the exact quotient,
    which differs from floor of the rounded quotient (1.0 // 0.1 == 9.0)."""
    a = [1.0, 0.3, 7.0, -0.5, 0.5, -7.5, 5.0, -5.0]
    b = [0.1, 0.1, 0.7, math.inf, -math.inf, 2.0, -3.0, 3.0]
    for dt in ("float32", "float64"):
        x, y = loom.tensor(a, dtype=ldt(dt)), loom.tensor(b, dtype=ldt(dt))
        want = [p // q for p, q in zip(x.tolist(), y.tolist())]
        assert loom.floor_divide(x, y).tolist() == want, dt
        assert (x // y).tolist() == want, dt


def test_remainder_is_pythons_mod():
    a = [5.5, -5.5, 5.5, -5.5, 0.5, -0.5, 7.0]
    b = [2.0, 2.0, -2.0, -2.0, math.inf, math.inf, 0.7]
    for dt in ("float32", "float64"):
        x, y = loom.tensor(a, dtype=ldt(dt)), loom.tensor(b, dtype=ldt(dt))
        want = [p % q for p, q in zip(x.tolist(), y.tolist())]
        np.testing.assert_allclose(loom.remainder(x, y).numpy(), want, rtol=1e-6)
    xi, yi = loom.tensor([7, -7, 7, -7]), loom.tensor([3, 3, -3, -3])
    assert (xi % yi).tolist() == [7 % 3, -7 % 3, 7 % -3, -7 % -3]
    assert (xi // yi).tolist() == [7 // 3, -7 // 3, 7 // -3, -7 // -3]


# (call over loom or torch, dtype of x and z); x = [5, 0, 3], z = [1, 0, 2]
DIVISIONS = {
    "floor_divide": lambda m, x, z: m.floor_divide(x, z),
    "remainder": lambda m, x, z: x % z,
    "floor_divide_": lambda m, x, z: x.floor_divide_(z),
    "remainder_": lambda m, x, z: x.remainder_(z),
    "floor_divide-number": lambda m, x, z: x // 0,
    "remainder-number": lambda m, x, z: m.remainder(7, z),
    "floor_divide-wrapped-to-zero": lambda m, x, z: x // m.tensor(2 ** 32),   # 0 in uint8 and int32
    "floor_divide-bool-divisor": lambda m, x, z: x // False,
    "floor_divide-broadcast": lambda m, x, z: x.reshape(3, 1) // z,
    "floor_divide-empty": lambda m, x, z: x[:0] // 0,
    "floor_divide-float": lambda m, x, z: x // m.tensor(0.0),
    "remainder-float": lambda m, x, z: m.remainder(x, m.tensor([0.0])),
}
INT_DTYPES = ["uint8", "int32", "int64"]
RAISES = dict.fromkeys(DIVISIONS, INT_DTYPES) | {   # the dtypes where a case divides by zero
    "floor_divide-wrapped-to-zero": ["uint8", "int32"], "floor_divide-empty": [], "floor_divide-float": [],
    "remainder-float": []}


@pytest.mark.parametrize("dt", INT_DTYPES)
@pytest.mark.parametrize("case", DIVISIONS)
def test_integer_division_by_zero_raises(case, dt):
    """Integer // and % by zero have no value: ZeroDivisionError (and RuntimeError, as PyTorch's)
    naming the op, raised before anything is written; float division by zero stays IEEE."""
    x, z = loom.tensor([5, 0, 3], dtype=ldt(dt)), loom.tensor([1, 0, 2], dtype=ldt(dt))
    if dt not in RAISES[case]:
        DIVISIONS[case](loom, x, z)
        return
    op = case.split("-")[0]
    with pytest.raises(ZeroDivisionError, match=rf"^{op}\(\): ZeroDivisionError: integer division or modulo by zero"):
        DIVISIONS[case](loom, x, z)
    with pytest.raises(RuntimeError):
        DIVISIONS[case](loom, x, z)
    assert x.tolist() == [5, 0, 3] and z.tolist() == [1, 0, 2]


@pytest.mark.parametrize("dt", INT_DTYPES)
@pytest.mark.parametrize("case", DIVISIONS)
def test_integer_division_by_zero_raises_where_pytorch_does(case, dt):
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, dt)
    try:
        DIVISIONS[case](torch, torch.tensor([5, 0, 3], dtype=tdt), torch.tensor([1, 0, 2], dtype=tdt))
        torch_raises = False
    except RuntimeError as e:
        assert "ZeroDivisionError" in str(e)
        torch_raises = True
    assert torch_raises == (dt in RAISES[case])


# x = [1, 2, 3] (True, False, True as bool); only a Python int exponent below zero is refused
POWERS = {
    "number": (lambda m, x: x ** -1, True),
    "function": (lambda m, x: m.pow(x, -2), True),
    "inplace": (lambda m, x: x.pow_(-1), True),
    "float-number": (lambda m, x: x ** -1.0, False),
    "zero-number": (lambda m, x: x ** 0, False),
    "one-number": (lambda m, x: x ** 1, False),
    "0d-tensor": (lambda m, x: x ** m.tensor(-1), False),
    "tensor": (lambda m, x: x ** m.tensor([-1, 2, -2]), False),
    "number-base": (lambda m, x: 2 ** -x.long(), False),
}


@pytest.mark.parametrize("dt", ["bool", "uint8", "int32", "int64", "float32"])
@pytest.mark.parametrize("case", POWERS)
def test_integer_tensors_to_negative_int_powers_are_refused(case, dt):
    call, integral_raises = POWERS[case]
    x = loom.tensor([1, 2, 3]).to(ldt(dt))
    if integral_raises and dt != "float32":
        with pytest.raises(RuntimeError, match=r"^pow_?\(\): Integers to negative integer powers are not allowed\.$"):
            call(loom, x)
        assert x.tolist() == loom.tensor([1, 2, 3]).to(ldt(dt)).tolist()
    else:
        call(loom, x)


@pytest.mark.parametrize("dt", ["bool", "uint8", "int32", "int64", "float32"])
@pytest.mark.parametrize("case", POWERS)
def test_integer_powers_match_pytorch(case, dt):
    torch = pytest.importorskip("torch")
    call = POWERS[case][0]
    try:
        want = call(torch, torch.tensor([1, 2, 3]).to(getattr(torch, dt)))
    except RuntimeError as e:
        assert "Integers to negative integer powers are not allowed." in str(e)
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
            call(loom, loom.tensor([1, 2, 3]).to(ldt(dt)))
        return
    got = call(loom, loom.tensor([1, 2, 3]).to(ldt(dt)))
    assert got.dtype.name == str(want.dtype).removeprefix("torch.") and got.tolist() == want.tolist()


def test_integer_extremes_do_not_trap():
    """INT_MIN // -1 overflows (a hardware trap in C); PyTorch and NumPy wrap."""
    for dt, lo in (("int32", -2 ** 31), ("int64", -2 ** 63)):
        x = loom.tensor([lo], dtype=ldt(dt))
        assert (x // -1).tolist() == [lo] and (x % -1).tolist() == [0]


def test_round_half_to_even():
    x = loom.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 3.5000001], dtype=loom.float64)
    assert loom.round(x).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 4.0]


def test_nan_propagates_through_max_and_min():
    x = loom.tensor([[1.0, math.nan, 3.0], [2.0, 5.0, 0.0]])
    for fn in (loom.amax, loom.amin):
        assert math.isnan(fn(x).item())
        r = fn(x, 1).tolist()
        assert math.isnan(r[0]) and not math.isnan(r[1])
    values, idx = loom.max(x, 1)
    assert math.isnan(values[0].item()) and idx.tolist()[0] == 1
    assert loom.argmax(x).item() == 1 and loom.argmin(x).item() == 1
    assert math.isnan(loom.maximum(x, loom.zeros(3))[0, 1].item())


def test_arg_reductions_pick_the_first_of_ties():
    x = loom.tensor([[1, 3, 3], [2, 2, 0]])
    assert loom.argmax(x, 1).tolist() == [1, 0] and loom.argmin(x, 1).tolist() == [0, 2]
    assert loom.max(x, 1)[1].tolist() == [1, 0] and loom.min(x, 0)[1].tolist() == [0, 1, 1]


def test_clamp_never_returns_values_below_min_or_above_max():
    """clamp(x, min=1.5) is >= 1.5 everywhere; PyTorch makes an integer tensor's result float32 for it."""
    for x in (loom.arange(4), loom.tensor([0, 1, 2, 3], dtype=loom.uint8), loom.arange(4.0)):
        lo = loom.clamp(x, 1.5)
        assert lo.amin().item() >= 1.5, (x.dtype, lo)
        hi = loom.clamp(x, None, 0.5)
        assert hi.amax().item() <= 0.5, (x.dtype, hi)


def test_clamp_bounds():
    x = loom.arange(5.0)
    assert loom.clamp(x, 1, 3).tolist() == [1.0, 1.0, 2.0, 3.0, 3.0]
    assert loom.clamp(x, None, 2).tolist() == [0.0, 1.0, 2.0, 2.0, 2.0]
    assert loom.clamp(x, 3, 1).tolist() == [1.0] * 5   # min > max: every value is max, as PyTorch
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        loom.clamp(x)
    nan = float("nan")   # a NaN bound gives NaN everywhere, a NaN input stays NaN, as PyTorch
    assert np.isnan(loom.clamp(x, max=nan).numpy()).all() and np.isnan(loom.clamp(x, min=nan).numpy()).all()
    assert np.isnan(loom.clamp(loom.tensor([nan, 1.0]), 0, 2).numpy()).tolist() == [True, False]


@pytest.mark.parametrize("start,end", [(0, 10), (2.5, -1.0), (-3, -3)])
def test_linspace_matches_numpy_for_any_steps(start, end):
    for steps in (0, 1, 2, 3, 8):
        np.testing.assert_allclose(loom.linspace(start, end, steps, dtype=loom.float64).numpy(),
                                   np.linspace(start, end, steps), rtol=1e-12, atol=1e-12,
                                   err_msg=f"linspace({start}, {end}, {steps})")


def test_arange_values_and_inferred_dtype():
    assert loom.arange(5, 0, -2).tolist() == [5, 3, 1]
    assert loom.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75] and loom.arange(0, 1, 0.25).dtype == loom.float32
    assert loom.arange(3).dtype == loom.int64 and loom.arange(3.0).dtype == loom.float32
    assert loom.arange(0).shape == (0,)


def test_eye_and_full_infer_like_pytorch():
    assert loom.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] and loom.eye(0).shape == (0, 0)
    assert loom.full((2,), 3).dtype == loom.int64 and loom.full((2,), True).dtype == loom.bool
    assert loom.full((2,), 1.5).dtype == loom.float32


def test_inplace_into_an_expanded_view_is_refused():
    """Writing through a view whose elements share memory would apply the op several times to one
    element; PyTorch raises ('more than one element of the written-to tensor refers to a single
    memory location') and NumPy's broadcast views are read-only."""
    base = loom.ones(1, 3)
    with pytest.raises((RuntimeError, ValueError)):
        base.expand(2, 3).add_(1)
    assert base.tolist() == [[1.0, 1.0, 1.0]]


def test_div_rounding_modes_and_fmod_match_pytorch():
    torch = pytest.importorskip("torch")
    for dt in ("int64", "int32", "uint8", "float32", "float64"):
        a = np.array([7, -7, 5, -5, 0, 9], dtype=np.int64 if dt == "uint8" else None)
        a = (np.abs(a) if dt == "uint8" else a).astype(dt)
        b = np.array([2, 2, -3, -3, 4, 9] if dt != "uint8" else [2, 2, 3, 3, 4, 9]).astype(dt)
        la, lb, ta, tb = loom.from_numpy(a), loom.from_numpy(b), torch.from_numpy(a), torch.from_numpy(b)
        for mode in (None, "trunc", "floor"):
            for other_l, other_t in ((lb, tb), (2, 2), (2.5, 2.5)):
                want = torch.div(ta, other_t, rounding_mode=mode)
                got = loom.div(la, other_l, rounding_mode=mode)
                assert got.dtype.name == str(want.dtype).split(".")[1] and got.tolist() == want.tolist(), (dt, mode)
        want = torch.fmod(ta, tb)
        assert loom.fmod(la, lb).tolist() == want.tolist() and la.fmod(lb).dtype.name == dt
    with pytest.raises(ZeroDivisionError, match="div"):
        loom.div(loom.tensor([1, 2]), 0, rounding_mode="trunc")
    with pytest.raises(ValueError, match="rounding_mode to be one of None, 'trunc', or 'floor' but found 'up'"):
        loom.div(loom.tensor([1.0]), 2, rounding_mode="up")
    x = loom.tensor([7, -7])
    x.div_(2, rounding_mode="trunc")
    assert x.tolist() == [3, -3] and loom.trunc(loom.tensor([-1.5, 2.5])).tolist() == [-1.0, 2.0]
