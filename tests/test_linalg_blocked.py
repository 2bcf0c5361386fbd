"""The blocked LU, Cholesky and QR factorizations (native/cpu/linalg_blocked.c: OpenBLAS's panels,
loom's GEMM for the trailing updates) against SciPy's LAPACK and PyTorch: sizes around the
thresholds (LU 128, Cholesky 192, QR 96) and the panel width (48), non-square LU and QR, singular and indefinite inputs
whose info codes must be LAPACK's, batches, on one thread and two."""
import numpy as np
import pytest
import scipy.linalg as sl
from scipy.linalg import lapack

import loom
from loom import linalg as LA

torch = pytest.importorskip("torch")
SIZES = [127, 128, 129, 200, 513]
DTYPES = ["float32", "float64"]


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    before = loom.get_num_threads()
    loom.set_num_threads(request.param)
    yield request.param
    loom.set_num_threads(before)


def tol(dtype, n):
    return dict(rtol=2e-3, atol=2e-3) if dtype == "float32" else dict(rtol=1e-9, atol=1e-9 * n)


def matrix(rng, m, n, dtype):
    # well-conditioned: the results then agree to the tolerances above whatever the summation order
    return (rng.standard_normal((m, n)) + np.sqrt(max(m, n)) * np.eye(m, n)).astype(dtype)


def spd(rng, n, dtype):
    x = rng.standard_normal((n, n))
    return (x @ x.T + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_lu_factor_matches_lapack(n, dtype, threads):
    rng = np.random.default_rng(n)
    A = matrix(rng, n, n, dtype)
    LU, piv, info = LA.lu_factor_ex(loom.tensor(A))
    ref_lu, ref_piv = sl.lu_factor(A)
    assert info.item() == 0
    np.testing.assert_array_equal(piv.numpy(), ref_piv + 1)   # the same rows chosen at every step
    np.testing.assert_allclose(LU.numpy(), ref_lu, **tol(dtype, n))
    np.testing.assert_array_equal(piv.numpy(), torch.linalg.lu_factor(torch.tensor(A)).pivots.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n", [(300, 200), (200, 300), (129, 513), (513, 129), (128, 700)])
def test_lu_of_non_square_matrices(m, n, dtype, threads):
    rng = np.random.default_rng(m + n)
    A = matrix(rng, m, n, dtype)
    LU, piv = LA.lu_factor(loom.tensor(A))
    ref_lu, ref_piv, info = (lapack.dgetrf if dtype == "float64" else lapack.sgetrf)(A)
    assert info == 0
    np.testing.assert_array_equal(piv.numpy(), ref_piv + 1)
    np.testing.assert_allclose(LU.numpy(), ref_lu, **tol(dtype, max(m, n)))
    P, L, U = LA.lu(loom.tensor(A))
    rtol = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(P.numpy() @ L.numpy() @ U.numpy(), A, rtol=rtol, atol=rtol * np.abs(A).max())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_solve_inv_det_match_numpy(n, dtype, threads):
    rng = np.random.default_rng(n + 1)
    A = matrix(rng, n, n, dtype)
    B = rng.standard_normal((n, 3)).astype(dtype)
    la = loom.tensor(A)
    np.testing.assert_allclose(LA.solve(la, loom.tensor(B)).numpy(), np.linalg.solve(A, B), **tol(dtype, n))
    # a column-major (transposed) A takes the path that factors A itself rather than A^T
    np.testing.assert_allclose(LA.solve(loom.tensor(A.T).mT, loom.tensor(B)).numpy(), np.linalg.solve(A, B),
                               **tol(dtype, n))
    np.testing.assert_allclose(LA.inv(la).numpy(), np.linalg.inv(A), **tol(dtype, n))
    sign, logabs = LA.slogdet(la)
    ref_sign, ref_logabs = np.linalg.slogdet(A)
    assert sign.item() == ref_sign
    np.testing.assert_allclose(logabs.item(), ref_logabs, rtol=1e-4 if dtype == "float32" else 1e-11)
    if n <= 200:   # det itself overflows float32 beyond
        np.testing.assert_allclose(LA.det(la).item(), np.linalg.det(A), rtol=1e-3 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("zero_col", [0, 47, 48, 49, 95, 96, 127, 150, 199])
def test_singular_lu_reports_lapacks_info(zero_col, dtype, threads):
    rng = np.random.default_rng(zero_col)
    A = matrix(rng, 200, 200, dtype)
    A[:, zero_col] = 0   # stays exactly zero through every update: U's first zero pivot is there
    A[:, 190] = 0        # and a later one, which must not override the first
    _, piv, info = LA.lu_factor_ex(loom.tensor(A))
    _, ref_piv, ref_info = (lapack.dgetrf if dtype == "float64" else lapack.sgetrf)(A)
    assert info.item() == ref_info == min(zero_col, 190) + 1
    np.testing.assert_array_equal(piv.numpy(), ref_piv + 1)
    # inv and solve factor A^T (a row-major A is A^T column-major): LAPACK's info for A^T, as before
    t_info = (lapack.dgetrf if dtype == "float64" else lapack.sgetrf)(A.T)[2]
    assert LA.inv_ex(loom.tensor(A)).info.item() == t_info
    assert LA.solve_ex(loom.tensor(A), loom.tensor(np.ones(200, dtype))).info.item() == t_info
    assert LA.inv_ex(loom.tensor(A.T).mT).info.item() == ref_info   # column-major: A itself
    with pytest.raises(LA.LinAlgError, match=rf"^linalg.inv: The diagonal element {t_info} is zero"):
        LA.inv(loom.tensor(A))
    with pytest.raises(LA.LinAlgError, match=r"^linalg.solve: The solver failed"):
        LA.solve(loom.tensor(A), loom.tensor(np.ones(200, dtype)))
    assert LA.det(loom.tensor(A)).item() == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_batched_lu_factors_each_matrix(dtype, threads):
    rng = np.random.default_rng(7)
    A = np.stack([matrix(rng, 160, 160, dtype) for _ in range(3)])
    A[1, :, 100] = 0
    LU, piv, info = LA.lu_factor_ex(loom.tensor(A))
    assert info.numpy().tolist() == [0, 101, 0]
    for b in range(3):
        ref_lu, ref_piv, _ = (lapack.dgetrf if dtype == "float64" else lapack.sgetrf)(A[b])
        np.testing.assert_array_equal(piv.numpy()[b], ref_piv + 1)
        np.testing.assert_allclose(LU.numpy()[b], ref_lu, **tol(dtype, 160))
    B = rng.standard_normal((3, 160, 2)).astype(dtype)
    A[1, :, 100] = 1   # now non-singular
    np.testing.assert_allclose(LA.solve(loom.tensor(A), loom.tensor(B)).numpy(), np.linalg.solve(A, B),
                               **tol(dtype, 160))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [127, 191, 192, 193, 200, 513])
def test_cholesky_matches_lapack(n, dtype, threads):
    rng = np.random.default_rng(n + 2)
    S = spd(rng, n, dtype)
    L = LA.cholesky(loom.tensor(S)).numpy()
    rtol = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(L, np.linalg.cholesky(S), rtol=rtol, atol=rtol * np.sqrt(n))
    assert np.all(np.triu(L, 1) == 0)
    U = LA.cholesky(loom.tensor(S), upper=True).numpy()
    np.testing.assert_allclose(U, L.T, rtol=rtol, atol=rtol * np.sqrt(n))
    assert np.all(np.tril(U, -1) == 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bad", [0, 5, 47, 48, 49, 96, 128, 199])
def test_not_positive_definite_reports_lapacks_info(bad, dtype, threads):
    rng = np.random.default_rng(bad)
    S = np.stack([spd(rng, 200, dtype), spd(rng, 200, dtype)])
    S[1, bad, bad] = -1000   # the leading minor of order bad + 1 is the first that is not positive
    _, info = LA.cholesky_ex(loom.tensor(S))
    _, ref_info = (lapack.dpotrf if dtype == "float64" else lapack.spotrf)(S[1], lower=True)
    assert info.numpy().tolist() == [0, ref_info] == [0, bad + 1]
    np.testing.assert_array_equal(info.numpy(), torch.linalg.cholesky_ex(torch.tensor(S)).info.numpy())
    with pytest.raises(LA.LinAlgError, match=rf"^linalg.cholesky: \(Batch element 1\): The factorization could not be "
                       rf"completed because the input is not positive-definite \(the leading minor of order {bad + 1}"):
        LA.cholesky(loom.tensor(S))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n", [(95, 95), (96, 96), (97, 97), (129, 129), (200, 200), (513, 513), (300, 200),
                                  (200, 300), (97, 513), (513, 97)])
def test_qr_matches_lapack(m, n, dtype, threads):
    rng = np.random.default_rng(m * n)
    A = rng.standard_normal((m, n)).astype(dtype)
    rtol = 2e-4 if dtype == "float32" else 1e-11
    # R and Q are unique up to signs, which geqrf fixes: the same Householder reflectors
    ref_q, ref_r = np.linalg.qr(A)
    Q, R = LA.qr(loom.tensor(A))
    np.testing.assert_allclose(R.numpy(), ref_r, rtol=rtol, atol=rtol * np.sqrt(m) * 4)
    np.testing.assert_allclose(Q.numpy(), ref_q, rtol=rtol, atol=rtol * 4)
    np.testing.assert_allclose(Q.numpy().T @ Q.numpy(), np.eye(min(m, n)), atol=rtol * 10)
    if m > n:
        ref_q, ref_r = np.linalg.qr(A, mode="complete")
        Q, R = LA.qr(loom.tensor(A), mode="complete")
        np.testing.assert_allclose(Q.numpy(), ref_q, rtol=rtol, atol=rtol * 4)
        np.testing.assert_allclose(R.numpy(), ref_r, rtol=rtol, atol=rtol * np.sqrt(m) * 4)
    _, R_only = LA.qr(loom.tensor(A), mode="r")
    np.testing.assert_allclose(R_only.numpy(), np.linalg.qr(A, mode="r"), rtol=rtol, atol=rtol * np.sqrt(m) * 4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_householder_product_matches_lapack(dtype, threads):
    rng = np.random.default_rng(3)
    A = rng.standard_normal((300, 200)).astype(dtype)
    (qr, tau), _ = sl.qr(A, mode="raw")
    for k in (200, 130, 96, 95):
        ref = (lapack.dorgqr if dtype == "float64" else lapack.sorgqr)(qr, tau[:k])[0]
        got = LA.householder_product(loom.tensor(np.ascontiguousarray(qr)), loom.tensor(tau[:k])).numpy()
        rtol = 2e-4 if dtype == "float32" else 1e-11
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * 4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batched_qr_and_cholesky_factor_each_matrix(dtype, threads):
    rng = np.random.default_rng(11)
    A = rng.standard_normal((3, 130, 110)).astype(dtype)
    rtol = 2e-4 if dtype == "float32" else 1e-11
    Q, R = LA.qr(loom.tensor(A))
    ref_q, ref_r = np.linalg.qr(A)
    np.testing.assert_allclose(Q.numpy(), ref_q, rtol=rtol, atol=rtol * 4)
    np.testing.assert_allclose(R.numpy(), ref_r, rtol=rtol, atol=rtol * 50)
    S = np.stack([spd(rng, 200, dtype) for _ in range(3)])
    np.testing.assert_allclose(LA.cholesky(loom.tensor(S)).numpy(), np.linalg.cholesky(S), rtol=rtol * 10,
                               atol=rtol * 50)
