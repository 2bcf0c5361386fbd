"""Where loom deliberately differs from PyTorch (docs/pytorch-compat.md, "Deliberate differences"):
each documented choice holds. They need no PyTorch to run."""
import math

import numpy as np
import pytest

import loom
import loom.nn.functional as F
from conftest import ROOT


def test_sign_of_nan_is_nan():   # Array API standard and NumPy; PyTorch gives 0
    assert math.isnan(loom.sign(loom.tensor([float("nan")])).item())


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [loom.float32, loom.float64])
def test_gelu_at_infinities_is_its_limit(approximate, dtype):
    r = F.gelu(loom.tensor([float("inf"), float("-inf"), -50.0, 3.0] * 5, dtype=dtype), approximate=approximate)
    v = r.tolist()[:4]
    assert v[0] == math.inf and v[1] == 0.0 and math.copysign(1, v[1]) < 0 and v[2] == 0.0 and v[3] > 2.99


@pytest.mark.parametrize("dtype", [loom.float32, loom.float64])
def test_logaddexp2_of_equal_arguments_is_exact(dtype):
    a = loom.tensor([-1.0, 0.0, 3.5, -100.0] * 5, dtype=dtype)
    np.testing.assert_array_equal(loom.logaddexp2(a, a).numpy(), a.numpy() + 1)


def test_fmod_and_remainder_by_subnormals_are_exact():
    # every float is a whole multiple of the smallest subnormal: the exact remainder is 0
    assert loom.fmod(loom.tensor([1e308], dtype=loom.float64), 5e-324).item() == 0.0
    assert loom.remainder(loom.tensor([1.0]), 1e-45).item() == 0.0
    assert loom.fmod(loom.tensor([1.0]), 1e-45).item() == 0.0


def test_polygamma_at_its_poles_is_infinite():
    for n, sign in ((1, 1), (2, -1), (3, 1)):
        v = loom.polygamma(n, loom.tensor([0.0, -1.0, -2.0], dtype=loom.float64)).tolist()
        assert v == [sign * math.inf] * 3, (n, v)


def test_inplace_with_overlapping_input_reads_the_old_values():
    # NumPy's rule: as if the right side were computed first (PyTorch refuses the call)
    x = loom.randn(40, 40)
    want = (x + x.t()).numpy()
    x.add_(x.t())
    np.testing.assert_array_equal(x.numpy(), want)


def test_out_of_another_shape_is_refused_unless_empty():
    with pytest.raises(ValueError, match=r"^exp\(\): "):
        loom.exp(loom.ones(2, 3), out=loom.empty(3, 2))
    e = loom.empty(0)
    assert loom.exp(loom.ones(2, 3), out=e) is e and e.shape == (2, 3)


def test_default_layouts_are_contiguous():
    y = loom.randn(2, 3, 4, 5).contiguous(memory_format=loom.channels_last)
    assert y.clone().is_contiguous() and loom.zeros_like(y).is_contiguous()


def test_the_document_lists_every_choice():
    text = (ROOT / "docs" / "pytorch-compat.in.md").read_text()   # the prose tools/compat_doc.py wraps
    for phrase in ("sign(nan)", "gelu(", "logaddexp2", "fmod", "polygamma", "x.add_(x.t())", "out=",
                   "memory_format", "loom.compile"):
        assert phrase in text, phrase
