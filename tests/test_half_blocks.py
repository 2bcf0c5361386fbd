"""The float16/bfloat16 pointwise loops work in whole blocks (native/core/half_block.h's LM_HALF_BLOCK
elements, converted to float, the body, converted back), a shorter tail through zero-padded copies, and a
strided input either gathered into a block by the runner or read element by element by the loop. Each
length around the block size, each layout, gives the float32 result rounded once, bit for bit; the
bfloat16 rounding (vector code on x86) gives PyTorch's bits, NaN and infinities included."""
import numpy as np
import pytest

import loom

LENGTHS = [1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000]
OPS = {"abs": 1, "neg": 1, "sqrt": 1, "sin": 1, "exp": 1, "sigmoid": 1, "add": 2, "div": 2, "maximum": 2,
       "lt": 2, "isnan": 1}


def _values(n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -2.5, 65504.0, 1e30], dtype=np.float32)
    k = min(n, len(special))
    x[n - k:] = special[:k]   # at the end: in the padded tail where there is one
    return x


def _layouts(x, dt):
    """the same values contiguous, every other element (the runner gathers), every 40th (the loop's own
    strided path: too far apart to gather)"""
    t = loom.tensor(x).to(dt)
    n = len(x)
    two = loom.zeros(2 * n, dtype=dt)
    two[::2] = t
    far = loom.zeros(40 * n, dtype=dt)
    far[::40] = t
    return {"contiguous": t, "every other": two[::2], "every 40th": far[::40]}


def _bits(t):
    a = t.float().numpy() if t.dtype not in (loom.bool,) else t.numpy()
    return a


@pytest.mark.parametrize("dt", [loom.float16, loom.bfloat16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_every_length_and_layout_is_the_float32_result_rounded_once(name, dt):
    fn = getattr(loom, name)
    for n in LENGTHS:
        xs = [_values(n, 1), _values(n, 2)][: OPS[name]]
        want_in = [loom.tensor(x).to(dt).float() for x in xs]   # the 16-bit values, exactly, in float32
        want = fn(*want_in)
        want = want if want.dtype == loom.bool else want.to(dt)
        layouts = [_layouts(x, dt) for x in xs]
        for lay in layouts[0]:
            got = fn(*[ly[lay] for ly in layouts])
            assert got.dtype == want.dtype, (name, lay)
            g, w = _bits(got), _bits(want)
            same = (g.view(np.uint8 if g.dtype == bool else np.uint32) == w.view(np.uint8 if w.dtype == bool else np.uint32))
            same |= np.isnan(g) & np.isnan(w) if g.dtype != bool else False
            assert same.all(), f"{name} {dt} n={n} {lay}: element {int(np.argmin(same))} is {g[~same][0]!r}, want {w[~same][0]!r}"


def test_bfloat16_rounding_is_pytorchs_bit_for_bit():
    torch = pytest.importorskip("torch", reason="PyTorch is the bfloat16 reference")
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2 ** 16, 100_003, dtype=np.uint64).astype(np.uint16)
    b = rng.integers(0, 2 ** 16, 100_003, dtype=np.uint64).astype(np.uint16)
    ta = torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    tb = torch.from_numpy(b.view(np.int16).copy()).view(torch.bfloat16)
    la = loom.tensor(ta.float().numpy()).to(loom.bfloat16)
    lb = loom.tensor(tb.float().numpy()).to(loom.bfloat16)
    for name in ("div", "mul", "add"):
        got = getattr(loom, name)(la, lb).float().numpy()
        want = getattr(torch, name)(ta, tb).float().numpy()
        same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
        assert same.all(), f"{name}: {int((~same).sum())} elements differ from PyTorch's"
