"""pad in every mode beyond the generated tests (which run one mode each for pad and
pad_backward): values, gradients and errors against PyTorch's F.pad over 1-, 2- and
3-D padding, batched and not, negative pads, strided inputs and every dtype;
gradcheck and gradgradcheck per mode; the cases loom refuses where PyTorch
returns memory it never wrote."""
import re

import numpy as np
import pytest

import loom
import loom.nn.functional as F

MODES = ["constant", "reflect", "replicate", "circular"]
# (input shape, pad) valid in every mode: last 1, 2 or 3 dims, batched or not, some pads negative
CASES = [
    ((3, 5), [2, 1]),
    ((2, 3, 5), [0, 4]),
    ((2, 3, 5), [-2, 3]),
    ((3, 4, 5), [1, 2, 3, 0]),
    ((2, 3, 4, 5), [2, -1, 1, 3]),
    ((2, 3, 4, 5), [4, 4, 3, 3]),
    ((2, 3, 4, 5), [3, 2, 1, 0, 2, 1]),
    ((2, 2, 3, 4, 5), [-1, 2, 2, -2, 1, 1]),
]


def _input(shape, seed=0, transposed=False):
    """float64 data, as a loom tensor (a transposed view when asked) and a NumPy array."""
    arr = np.random.default_rng(seed).standard_normal(shape)
    if transposed:
        return loom.from_numpy(np.ascontiguousarray(np.swapaxes(arr, 0, -1))).transpose(0, -1), arr
    return loom.tensor(arr), arr


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,pad", CASES, ids=str)
@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "transposed"])
def test_values_and_gradients_match_pytorch(torch, mode, shape, pad, transposed):
    x, arr = _input(shape, transposed=transposed)
    assert x.is_contiguous() != transposed
    x.requires_grad_()
    tx = torch.tensor(arr, requires_grad=True)
    out, tout = F.pad(x, pad, mode=mode), torch.nn.functional.pad(tx, pad, mode=mode)
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    g = np.random.default_rng(1).standard_normal(tuple(tout.shape))
    out.backward(loom.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("pad", [[1, 2, -1, 0, 0, 3, 2, 2], [-2, -2], [0, 0, -1, -3], []], ids=str)
@pytest.mark.parametrize("value", [None, 2.5])
def test_constant_pads_any_dims_and_crops(torch, pad, value):
    x, arr = _input((4, 3, 4, 5))
    np.testing.assert_array_equal(loom.pad(x, pad, value=value).numpy(),
                                  torch.nn.functional.pad(torch.tensor(arr), pad, value=value).numpy())


@pytest.mark.parametrize("shape,pad,mode", [((0, 3, 4), [1, 2], "reflect"), ((0, 3, 4), [1, 2, 0, 1], "circular"),
                                             ((2, 0, 4), [1, 1], "circular"), ((2, 3, 0), [1, 1, 2, 0], "constant"),
                                             ((2, 3), [0, 0, -2, 0], "constant"), ((3,), [], "constant"),
                                             ((), [], "constant"), ((2, 3), [0, 0], "replicate")], ids=str)
def test_empty_and_unpadded(torch, shape, pad, mode):
    x, arr = _input(shape)
    x.requires_grad_()
    tx = torch.tensor(arr, requires_grad=True)
    out, tout = loom.pad(x, pad, mode), torch.nn.functional.pad(tx, pad, mode=mode)
    assert out.shape == tuple(tout.shape)
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32"])
@pytest.mark.parametrize("mode", MODES)
def test_every_dtype(torch, dtype, mode):
    arr = (np.arange(2 * 3 * 4).reshape(2, 3, 4) % 5).astype(dtype)
    out = loom.pad(loom.tensor(arr), [2, 1, 1, -1], mode)
    assert out.dtype.name == dtype
    if dtype == "bool" and mode in ("reflect", "replicate"):   # PyTorch has no bool kernels for these
        arr, dtype = arr.astype("uint8"), "uint8"
    want = torch.nn.functional.pad(torch.tensor(arr), [2, 1, 1, -1], mode=mode).numpy()
    np.testing.assert_array_equal(out.numpy().astype(dtype), want)


def test_constant_value_converts_like_pytorch(torch):
    for dtype, value in [("int32", -1.5), ("int64", 2 ** 62), ("uint8", 255), ("bool", 0.5), ("float32", 1e30),
                         ("float64", float("-inf"))]:
        arr = np.zeros((1, 2), dtype=dtype)
        np.testing.assert_array_equal(loom.pad(loom.tensor(arr), [1, 1], value=value).numpy(),
                                      torch.nn.functional.pad(torch.tensor(arr), [1, 1], value=value).numpy())
    for dtype, value in [("int32", float("nan")), ("int32", 2 ** 40), ("uint8", -1), ("uint8", 256.0),
                         ("int64", 9.3e18), ("float32", 1e300)]:
        with pytest.raises(ValueError, match=f"^pad\\(\\): value cannot be converted to type {dtype} without overflow"):
            loom.pad(loom.zeros(1, 2, dtype=getattr(loom, dtype)), [1, 1], value=value)
        with pytest.raises(RuntimeError, match="without overflow"):
            torch.nn.functional.pad(torch.zeros(1, 2, dtype=getattr(torch, dtype)), [1, 1], value=value)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,pad", [((3, 5), [2, -1]), ((2, 3, 4), [1, 2, -1, 1]), ((1, 2, 3, 4, 3), [1, 0, 2, 1, 0, 1])],
                         ids=str)
def test_gradcheck_and_gradgradcheck(mode, shape, pad):
    x, _ = _input(shape, seed=4, transposed=True)
    x.requires_grad_()
    fn = lambda t: loom.pad(t, pad, mode)
    assert loom.autograd.gradcheck(fn, (x,))
    assert loom.autograd.gradgradcheck(fn, (x,))


def test_forward_mode_in_every_mode():
    from loom.autograd import forward_ad as fw
    x, _ = _input((2, 3, 4))
    t, _ = _input((2, 3, 4), seed=1)
    for mode in MODES:
        with fw.dual_level():
            tangent = fw.unpack_dual(loom.pad(fw.make_dual(x, t), [2, 1], mode)).tangent
        np.testing.assert_array_equal(tangent.numpy(), loom.pad(t, [2, 1], mode).numpy())


# (shape, pad, mode, value): PyTorch refuses each the same way (the type and the message)
SAME_ERRORS = [
    ((3, 4), [1], "constant", None, ValueError, "Padding length must be divisible by 2"),
    ((3, 4), [1] * 6, "reflect", None, ValueError, "Padding length should be less than or equal to two times the "
                                                    "input dimension but got padding length 6 and input of dimension 2"),
    ((3, 4), [1, 1], "wrap", None, NotImplementedError, "Unrecognised padding mode wrap"),
    ((3, 4), [1, 1], "reflect", 1.0, ValueError, 'Padding mode "reflect" doesn\'t take in value argument'),
    ((3, 4), [1, 1], "circular", 2, ValueError, 'Padding mode "circular" doesn\'t take in value argument'),
    ((3, 4), [1, 1, 1, 1], "replicate", None, NotImplementedError, "Padding size 4 is not supported for 2D input "
                                                                    "tensor.\nSupported combinations"),
    ((4,), [1, 1], "circular", None, NotImplementedError, "Padding size 2 is not supported for 1D input tensor"),
    ((1, 2, 3, 4, 5, 6), [1] * 6, "reflect", None, NotImplementedError, "Padding size 6 is not supported for 6D"),
    ((3, 4), [], "reflect", None, NotImplementedError, "Padding size 0 is not supported for 2D"),
    ((3, 4), [4, 0], "reflect", None, ValueError, r"Padding size should be less than the corresponding input "
                                                  r"dimension, but got: padding \(4, 0\) at dimension 1 of input \[3, 4\]"),
    ((2, 3, 4, 5), [1, 1, 5, 1], "reflect", None, ValueError, r"padding \(5, 1\) at dimension 2 of input \[2, 3, 4, 5\]"),
    ((2, 3, 4, 5), [5, 0, 5, 0], "reflect", None, ValueError, r"padding \(5, 0\) at dimension 3"),   # pad's order
    ((3, 4), [-4, 0], "replicate", None, ValueError, r"input \(W: 4\) is too small. Calculated output W: 0"),
    ((3, 4), [-3, -1], "reflect", None, ValueError, r"input \(W: 4\) is too small"),
    ((0, 4), [1, 1], "reflect", None, ValueError, r"Expected 2D or 3D \(batch mode\) tensor with possibly 0 batch "
                                                  r"size and other non-zero dimensions for input, but got: \[0, 4\]"),
    ((3, 0, 5), [1, 1, 1, 1], "replicate", None, ValueError, r"Expected 3D or 4D \(batch mode\)"),
    ((3, 4), [5, 0], "circular", None, ValueError, "Padding value causes wrapping around more than once"),
    ((2, 3, 0), [1, 1], "circular", None, ValueError, "Padding value causes wrapping around more than once"),
]


@pytest.mark.parametrize("shape,pad,mode,value,exc,message", SAME_ERRORS, ids=[str(e[1:4]) for e in SAME_ERRORS])
def test_errors_match_pytorch(torch, shape, pad, mode, value, exc, message):
    with pytest.raises(exc, match="^pad\\(\\): (.*: )?" + message):
        F.pad(loom.zeros(shape), pad, mode, value)
    with pytest.raises((RuntimeError, NotImplementedError), match=message):
        torch.nn.functional.pad(torch.zeros(shape), pad, mode, value)


def test_negative_pads_that_crop_more_than_the_input(torch):
    """PyTorch fails inside narrow(); loom says which padding is at fault."""
    for mode in ("constant", "circular"):
        with pytest.raises(ValueError, match=re.escape("pad(): negative padding (-5, 1) removes more than the size of "
                                                       "dimension 1 of input [3, 4]")):
            loom.pad(loom.zeros(3, 4), [-5, 1], mode)
    with pytest.raises(RuntimeError):
        torch.nn.functional.pad(torch.zeros(3, 4), [-5, 1])
    assert loom.pad(loom.zeros(3, 4), [-2, -2]).shape == (3, 0)


def test_stricter_than_pytorch_where_it_returns_unwritten_memory(torch):
    """Circular padding that wraps past what negative pads leave, and reflect/replicate
    to an empty padded dim: PyTorch returns a tensor (circular: memory it never wrote;
    2-D reflect even a negative size), loom refuses."""
    with pytest.raises(ValueError, match="wrapping around more than once: padding \\(2, -4\\)"):
        loom.pad(loom.zeros(4, 4), [2, -4], "circular")
    assert torch.nn.functional.pad(torch.zeros(4, 4), [2, -4], mode="circular").shape == (4, 2)
    with pytest.raises(ValueError, match=re.escape("input (H: 4, W: 4) is too small. Calculated output H: 0, W: 4")):
        loom.pad(loom.zeros(1, 1, 4, 4), [0, 0, -4, 0], "replicate")
    assert torch.nn.functional.pad(torch.zeros(1, 1, 4, 4), [0, 0, -4, 0], mode="replicate").shape == (1, 1, 0, 4)


def test_pad_backward_checks_its_arguments():
    assert loom.pad_backward(loom.ones(3, 6), [3, 4], [2, 0], "reflect").tolist() == [[1.0, 2.0, 2.0, 1.0]] * 3
    with pytest.raises(ValueError, match=re.escape("pad_backward(): grad_output of shape [3, 5] does not match the "
                                                   "padded shape [3, 6]")):
        loom.pad_backward(loom.ones(3, 5), [3, 4], [2, 0], "reflect")
    with pytest.raises(ValueError, match="pad_backward\\(\\): negative dimension"):
        loom.pad_backward(loom.ones(3, 5), [-1, 4], [1, 0], "constant")
    with pytest.raises(TypeError, match="pad_backward\\(\\): .*not implemented for dtype int64"):
        loom.pad_backward(loom.ones(3, 5, dtype=loom.int64), [3, 4], [1, 0], "constant")


def test_functional_pad_takes_pytorchs_arguments():
    x = loom.arange(6.0).reshape(1, 2, 3)
    got = F.pad(input=x, pad=(1, 1), mode="constant", value=-1)
    assert got.tolist() == [[[-1.0, 0.0, 1.0, 2.0, -1.0], [-1.0, 3.0, 4.0, 5.0, -1.0]]]
    assert F.pad(x, (1, 1), "reflect").tolist() == loom.pad(x, [1, 1], "reflect").tolist()
