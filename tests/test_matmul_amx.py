"""bfloat16 products with loom.backends.cpu.matmul.allow_bf16_amx on (the default): on a host with AMX
tiles they run there (native/cpu/gemm_amx.c), elsewhere on the float32 path, and either way every
result lies within float32 summation's error of the exact product, rounded once to bfloat16. Shapes
cross the kernel's tile edges (16 rows and columns, 32 k), its blocks (512 k, 256 columns, 2048 rows)
and every operand layout the packings read fast or element by element."""
import numpy as np
import pytest

import loom
import loom.nn.functional as F


def _bf16(rng, *shape):
    return loom.from_numpy(rng.standard_normal(shape).astype(np.float32)).bfloat16()


def _np(t):
    return t.float().numpy().astype(np.float64)


def _check(got, a, b, K, bias=None):
    """|got - exact| within one bfloat16 rounding of the exact product plus float32 sums' error"""
    exact = _np(a) @ _np(b) + (0 if bias is None else _np(bias))
    scale = np.abs(_np(a)) @ np.abs(_np(b)) + (0 if bias is None else np.abs(_np(bias)))
    err = np.abs(_np(got) - exact)
    assert got.dtype == loom.bfloat16
    assert np.all(err <= 2.0 ** -8 * np.abs(exact) + (K + 2) * 2.0 ** -23 * scale), err.max()


def _layout(t, transposed):
    return t.T.contiguous().T if transposed else t


SHAPES = [(16, 16, 32), (32, 32, 64), (17, 33, 31), (1, 300, 513), (100, 257, 600), (2100, 40, 70), (64, 1, 1100)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_within_float32_sums_of_the_exact_product(shape, ta, tb):
    M, N, K = shape
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    a, b = _layout(_bf16(rng, M, K), ta), _layout(_bf16(rng, K, N), tb)
    _check(a @ b, a, b, K)


def test_strided_operands_and_the_element_packing():
    rng = np.random.default_rng(1)
    a = _bf16(rng, 70, 2 * 90)[:, ::2]
    b = _bf16(rng, 3 * 90, 50)[::3]
    _check(a @ b, a, b, 90)


@pytest.mark.parametrize("shape", [(64, 96, 80), (256, 512, 784), (33, 10, 47)], ids=str)
def test_linear_and_its_backward(shape):
    M, N, K = shape
    rng = np.random.default_rng(5)
    x, w, bias, g = _bf16(rng, M, K), _bf16(rng, N, K), _bf16(rng, N), _bf16(rng, M, N)
    _check(F.linear(x, w, bias), x, w.T, K, bias)
    gx, gw, gb = loom.linear_backward(g, x, w)
    _check(gx, g, w, N)
    _check(gw, g.T, x, M)


def test_special_values_reach_the_result():
    a = loom.ones(32, 64).bfloat16()
    b = loom.ones(64, 32).bfloat16()
    a[3, 5] = float("inf")
    a[7, 9] = float("nan")
    out = (a @ b).float()
    assert out[3].isinf().all() and out[7].isnan().all()
    assert loom.equal(out[0], loom.full((32,), 64.0))


def test_the_switch_brings_back_the_float32_path_bit_for_bit():
    rng = np.random.default_rng(2)
    a, b = _bf16(rng, 256, 784), _bf16(rng, 784, 512)
    want = (a.float() @ b.float()).bfloat16()
    loom.backends.cpu.matmul.allow_bf16_amx = False
    try:
        assert loom.backends.cpu.matmul.allow_bf16_amx is False
        assert loom.equal((a @ b).view(loom.int16), want.view(loom.int16))
    finally:
        loom.backends.cpu.matmul.allow_bf16_amx = True
    assert isinstance(loom.backends.cpu.is_amx_available(), bool)
