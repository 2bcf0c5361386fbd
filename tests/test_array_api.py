"""loom.array_api: the Python Array API standard's namespace over loom tensors. Focused checks
of its spellings, promotion and special cases; the standard's own suite is run by
tools/array_api_suite.py."""
import math

import numpy as np
import pytest

import loom
import loom.array_api as xp


def test_namespace_is_reachable_from_a_tensor():
    x = loom.ones(3)
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2024.12") is xp
    assert xp.__array_api_version__ == "2024.12"
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="1999.01")


def test_array_attributes():
    x = xp.reshape(xp.arange(6), (2, 3))
    assert tuple(x.mT.shape) == (3, 2)
    assert x.device == xp.__array_namespace_info__().default_device()
    assert x.to_device("cpu").tolist() == x.tolist()
    assert complex(xp.asarray(1 + 2j)) == 1 + 2j
    assert (xp.asarray([1, 2], dtype=xp.int32) << 2).tolist() == [4, 8]
    assert (xp.asarray([-8, 9], dtype=xp.int8) >> 1).tolist() == [-4, 4]


def test_promotion_has_no_value_based_casting():
    a = xp.ones(3, dtype=xp.float32)
    b = xp.asarray(1.0, dtype=xp.float64)   # 0-d: promotes as any other array
    assert xp.add(a, b).dtype == xp.float64
    assert xp.add(xp.ones(2, dtype=xp.uint8), xp.ones(2, dtype=xp.int8)).dtype == xp.int16
    assert xp.multiply(xp.ones(2, dtype=xp.int8), 1000 // 10).dtype == xp.int8     # scalar takes the array's
    assert xp.result_type(xp.float32, 1.0, xp.int8) == xp.float32
    assert xp.result_type(xp.complex64, xp.float64) == xp.complex128
    assert xp.can_cast(xp.int8, xp.int16) and not xp.can_cast(xp.float64, xp.int64)
    with pytest.raises(ValueError):
        xp.result_type(1, 2.0)


def test_isdtype_and_info():
    assert xp.isdtype(xp.int8, "signed integer") and not xp.isdtype(xp.uint8, "signed integer")
    assert xp.isdtype(xp.float64, ("integral", "real floating"))
    assert xp.isdtype(xp.complex64, xp.complex64) and not xp.isdtype(xp.complex64, "real floating")
    info = xp.__array_namespace_info__()
    assert info.default_dtypes()["indexing"] == xp.int64
    assert set(info.dtypes(kind="complex floating")) == {"complex64", "complex128"}
    assert info.capabilities()["boolean indexing"] is True
    assert xp.finfo(xp.complex64).dtype == xp.float32 and xp.iinfo(xp.int16).max == 32767


def test_reductions_take_axis_and_keepdims():
    x = xp.reshape(xp.arange(24, dtype=xp.float64), (2, 3, 4))
    assert tuple(xp.sum(x, axis=(0, 2), keepdims=True).shape) == (1, 3, 1)
    assert xp.sum(x, axis=()).tolist() == x.tolist()         # an empty axis tuple reduces nothing
    assert xp.max(x, axis=-1).tolist() == np.arange(24.).reshape(2, 3, 4).max(-1).tolist()
    assert xp.sum(xp.ones(3, dtype=xp.int8)).dtype == xp.int64
    assert xp.std(xp.asarray([1.0, 2.0, 3.0, 4.0]), correction=1).item() == pytest.approx(np.std([1, 2, 3, 4], ddof=1))
    c = xp.cumulative_sum(xp.asarray([1, 2, 3]), include_initial=True)
    assert c.tolist() == [0, 1, 3, 6]
    assert xp.cumulative_prod(xp.asarray([[1., 2.], [3., 4.]]), axis=1).tolist() == [[1, 2], [3, 12]]
    assert xp.diff(xp.asarray([1, 4, 9, 16]), n=2).tolist() == [2, 2]
    assert xp.all(xp.asarray([1, 0]), axis=0).item() is False


def test_manipulation():
    x = xp.reshape(xp.arange(6), (2, 3))
    assert tuple(xp.permute_dims(x, (1, 0)).shape) == (3, 2)
    assert xp.concat([x, xp.ones((1, 3), dtype=xp.int8)], axis=0).dtype == xp.int64
    assert xp.concat([x, x], axis=None).tolist() == list(range(6)) * 2
    assert tuple(xp.expand_dims(x, axis=-1).shape) == (2, 3, 1)
    assert xp.tile(xp.asarray([1, 2]), (2,)).tolist() == [1, 2, 1, 2]
    assert [u.tolist() for u in xp.unstack(x, axis=1)] == [[0, 3], [1, 4], [2, 5]]
    assert xp.repeat(xp.asarray([1, 2]), 2).tolist() == [1, 1, 2, 2]
    with pytest.raises(ValueError):
        xp.squeeze(x, axis=0)


def test_searching_sorting_sets_and_indexing():
    x = xp.asarray([3.0, 1.0, math.nan, 1.0, math.nan])
    u = xp.unique_all(x)
    assert u.values.shape[0] == 4                      # every NaN is its own value
    assert xp.take(u.values, u.inverse_indices).tolist()[:2] == [3.0, 1.0]
    assert u.indices.tolist()[:2] == [1, 0]
    assert xp.unique_counts(xp.asarray([2, 2, 5])).counts.tolist() == [2, 1]
    s = xp.asarray([1.0, 2.0, 2.0, 3.0])
    assert xp.searchsorted(s, xp.asarray([2.0]), side="right").tolist() == [3]
    assert xp.argsort(xp.asarray([1, 3, 3, 2]), descending=True).tolist() == [1, 2, 3, 0]   # stable
    assert xp.take(xp.asarray([10, 20, 30]), xp.asarray([-1, 0])).tolist() == [30, 10]
    y = xp.asarray([[1, 5], [7, 2]])
    assert xp.take_along_axis(y, xp.argmax(y, axis=1, keepdims=True), axis=1).tolist() == [[5], [7]]
    assert xp.where(xp.asarray([True, False]), 1.5, xp.asarray([0.0, 0.0])).tolist() == [1.5, 0.0]


def test_elementwise_special_cases():
    z = xp.asarray([0.0, -0.0, math.inf, math.nan])
    assert xp.signbit(z).tolist() == [False, True, False, False]
    assert math.isnan(xp.clip(xp.asarray([math.nan]), 0.0, 1.0).item())
    assert xp.clip(xp.asarray([-1, 5, 10], dtype=xp.int8), min=0, max=6).tolist() == [0, 5, 6]
    assert xp.nextafter(xp.asarray(1.0, dtype=xp.float32), 2.0).item() == np.nextafter(np.float32(1), np.float32(2))
    assert xp.sign(xp.asarray([3 + 4j], dtype=xp.complex128)).tolist() == [pytest.approx(0.6 + 0.8j)]
    assert xp.round(xp.asarray([0.5, 1.5, 2.5])).tolist() == [0.0, 2.0, 2.0]   # half to even
    assert xp.floor(xp.asarray([3], dtype=xp.int16)).dtype == xp.int16
    assert xp.real(xp.asarray([1 + 2j])).dtype == xp.float32 and xp.imag(xp.asarray([1.0])).tolist() == [0.0]
    assert xp.copysign(xp.asarray([1.0]), -0.0).tolist() == [-1.0]
    fd = xp.floor_divide(xp.asarray([math.inf, 1.0, 7.0]), xp.asarray([2.0, -math.inf, 2.0]))
    assert fd.tolist() == [math.inf, -0.0, 3.0] and xp.signbit(fd).tolist() == [False, True, False]
    r = xp.remainder(xp.asarray([-0.0, 0.0, 5.0]), xp.asarray([1.0, -1.0, -3.0]))
    assert xp.signbit(r).tolist() == [False, True, True] and r.tolist() == [0.0, -0.0, -1.0]


def test_creation():
    assert xp.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert xp.arange(5, 0, -2).tolist() == [5, 3, 1]
    assert xp.asarray([1, 2.5]).dtype == xp.float32 and xp.asarray([True]).dtype == xp.bool
    assert xp.asarray([1j]).dtype == xp.complex64
    a = xp.asarray([1, 2])
    assert xp.asarray(a, copy=False) is a and xp.asarray(a, copy=True) is not a
    with pytest.raises(ValueError):
        xp.asarray([1, 2], copy=False)
    assert xp.eye(2, 3, k=1).tolist() == [[0, 1, 0], [0, 0, 1]]
    assert xp.linspace(0, 1, 4, endpoint=False).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert xp.full((2,), 7).dtype == xp.int64


def test_linalg_and_fft_extensions():
    a = xp.asarray([[4.0, 1.0], [1.0, 3.0]], dtype=xp.float64)
    assert xp.linalg.solve(a, xp.asarray([1.0, 2.0], dtype=xp.float64)).tolist() == pytest.approx(
        np.linalg.solve(np.array([[4., 1.], [1., 3.]]), [1., 2.]).tolist())
    w, v = xp.linalg.eigh(a)
    assert w.tolist() == pytest.approx(np.linalg.eigvalsh([[4., 1.], [1., 3.]]).tolist())
    assert xp.linalg.trace(xp.reshape(xp.arange(4), (2, 2))).item() == 3
    assert xp.vecdot(xp.asarray([1j, 1.0]), xp.asarray([1j, 1.0])).item() == 2     # conjugates x1
    assert xp.fft.fftfreq(4).tolist() == np.fft.fftfreq(4).tolist()
    f = xp.fft.fft(xp.asarray([1.0, 0.0, 0.0, 0.0]))
    assert f.tolist() == [1, 1, 1, 1]


def test_complex_linalg_through_the_real_embedding():
    a = np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], dtype=np.complex128)
    x = xp.asarray(a)
    assert np.allclose(np.array(xp.linalg.inv(x).tolist()), np.linalg.inv(a))
    assert np.allclose(xp.linalg.svdvals(x).tolist(), np.linalg.svd(a, compute_uv=False))
    assert np.allclose(np.array(xp.linalg.matrix_power(x, 3).tolist()), np.linalg.matrix_power(a, 3))
    assert xp.linalg.matrix_norm(x, ord="nuc").item() == pytest.approx(np.linalg.norm(a, "nuc"))
    assert xp.linalg.vector_norm(x).item() == pytest.approx(np.linalg.norm(a))
    assert xp.eye(2, dtype=xp.complex64).tolist() == [[1, 0], [0, 1]]
    assert xp.linalg.cross(xp.asarray([1, 0, 0], dtype=xp.uint8), xp.asarray([0, 1, 0], dtype=xp.uint8)).tolist() == [0, 0, 1]


def test_shifts_past_the_width():
    assert xp.bitwise_right_shift(xp.asarray([-5, 7], dtype=xp.int16), xp.asarray([31, 1], dtype=xp.int16)).tolist() == [-1, 3]
    assert xp.bitwise_right_shift(xp.asarray([200], dtype=xp.uint8), 9).tolist() == [0]
    assert xp.bitwise_left_shift(xp.asarray([3], dtype=xp.int8), 8).tolist() == [0]
