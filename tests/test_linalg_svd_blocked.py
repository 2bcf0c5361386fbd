"""The blocked SVD (native/cpu/linalg_blocked.c: gebrd's panels by LAPACK with loom's GEMM for the
trailing updates, bdsdc, Q and P applied or formed through loom's GEMM) against NumPy and
PyTorch: sizes on both sides of its threshold (min(m, n) 128) and of gesdd's QR-first ratio
(max / min 11/6), tall and wide, full_matrices either way, values only, rank-deficient,
ill-conditioned and zero inputs, strided views and batches, on one thread (the reflectors applied
in place) and two (Q and P formed beside bdsdc)."""
import numpy as np
import pytest

import loom
from loom import linalg as LA

torch = pytest.importorskip("torch")
DTYPES = ["float32", "float64"]
SHAPES = [(127, 127), (128, 128), (129, 129), (200, 200), (300, 200), (200, 300), (350, 200), (200, 370),
          (400, 200), (130, 513)]


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    before = loom.get_num_threads()
    loom.set_num_threads(request.param)
    yield request.param
    loom.set_num_threads(before)


def eps(dtype):
    return np.finfo(dtype).eps


def check_svd(A, full, dtype):
    """U diag(S) Vh reproduces A, U and Vh are orthonormal, S is NumPy's (descending)"""
    m, n = A.shape[-2:]
    k = min(m, n)
    U, S, Vh = (x.numpy() for x in LA.svd(loom.tensor(A), full_matrices=full))
    assert U.shape == A.shape[:-2] + ((m, m) if full else (m, k))
    assert Vh.shape == A.shape[:-2] + ((n, n) if full else (k, n))
    assert S.dtype == np.dtype(dtype) and U.dtype == np.dtype(dtype) and Vh.dtype == np.dtype(dtype)
    A64, U64, S64, Vh64 = (x.astype(np.float64) for x in (A, U, S, Vh))
    scale = max(np.abs(S64).max(), 1e-300) if S.size else 1
    tol = 30 * max(m, n) * eps(dtype)
    rec = (U64[..., :, :k] * S64[..., None, :]) @ Vh64[..., :k, :]
    assert np.abs(rec - A64).max() <= tol * scale
    for Q in (np.swapaxes(U64, -1, -2) @ U64, Vh64 @ np.swapaxes(Vh64, -1, -2)):
        assert np.abs(Q - np.eye(Q.shape[-1])).max() <= tol
    ref = np.linalg.svd(A64, compute_uv=False)
    assert np.abs(S64 - ref).max() <= tol * scale
    assert (np.diff(S64, axis=-1) <= 0).all()
    return U, S, Vh


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n", SHAPES)
@pytest.mark.parametrize("full", [False, True])
def test_svd_reconstructs_and_matches_numpy(m, n, full, dtype, threads):
    rng = np.random.default_rng(m * 1000 + n)
    check_svd(rng.standard_normal((m, n)).astype(dtype), full, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n", [(200, 200), (300, 200), (200, 300)])
def test_singular_values_alone(m, n, dtype, threads):
    rng = np.random.default_rng(m + n)
    A = rng.standard_normal((m, n)).astype(dtype)
    S = LA.svdvals(loom.tensor(A)).numpy()
    ref = np.linalg.svd(A.astype(np.float64), compute_uv=False)
    assert np.abs(S - ref).max() <= 30 * max(m, n) * eps(dtype) * ref[0]
    np.testing.assert_allclose(S, torch.linalg.svdvals(torch.tensor(A)).numpy(), rtol=0,
                               atol=30 * max(m, n) * eps(dtype) * ref[0])
    # the vectors' run gives the same values
    np.testing.assert_allclose(LA.svd(loom.tensor(A))[1].numpy(), S, rtol=0, atol=30 * max(m, n) * eps(dtype) * ref[0])


@pytest.mark.parametrize("dtype", DTYPES)
def test_rank_deficient_and_ill_conditioned(dtype, threads):
    rng = np.random.default_rng(7)
    low = rng.standard_normal((260, 12)) @ rng.standard_normal((12, 200))
    U, S, Vh = check_svd(low.astype(dtype), False, dtype)
    assert (S[12:] <= 100 * 260 * eps(dtype) * S[0]).all()   # the zero singular values stay near zero
    Q1, _ = np.linalg.qr(rng.standard_normal((220, 200)))
    Q2, _ = np.linalg.qr(rng.standard_normal((200, 200)))
    ill = (Q1 * np.logspace(0, -12, 200)) @ Q2.T
    check_svd(ill.astype(dtype), True, dtype)
    # a repeated singular value: the vectors are any basis of its subspace, still orthonormal
    check_svd((Q1 * np.repeat([3.0, 1.0], 100)) @ Q2.T, False, "float64")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n", [(200, 200), (140, 250)])
def test_zero_matrix(m, n, dtype, threads):
    U, S, Vh = check_svd(np.zeros((m, n), dtype), True, dtype)
    assert (S == 0).all()


def test_strided_inputs_and_batches(threads):
    rng = np.random.default_rng(3)
    base = loom.tensor(rng.standard_normal((2, 300, 420)))
    for view in (base.transpose(-2, -1), base[:, ::2, :], base[..., 1::2]):
        A = view.numpy()
        U, S, Vh = LA.svd(view, full_matrices=False)
        rec = (U.numpy() * S.numpy()[..., None, :]) @ Vh.numpy()
        assert np.abs(rec - A).max() <= 1e-12 * np.abs(A).max() * 100
        np.testing.assert_allclose(S.numpy(), np.linalg.svd(A, compute_uv=False), rtol=1e-10, atol=1e-11)
    B = rng.standard_normal((3, 150, 140)).astype(np.float32)
    check_svd(B, True, "float32")


def test_matches_torch_up_to_signs(threads):
    """the same vectors as PyTorch's LAPACK where the singular values are well apart"""
    rng = np.random.default_rng(11)
    Q1, _ = np.linalg.qr(rng.standard_normal((260, 200)))
    Q2, _ = np.linalg.qr(rng.standard_normal((200, 200)))
    A = (Q1 * np.linspace(10, 1, 200)) @ Q2.T
    U, S, Vh = (x.numpy() for x in LA.svd(loom.tensor(A), full_matrices=False))
    tU, tS, tVh = (x.numpy() for x in torch.linalg.svd(torch.tensor(A), full_matrices=False))
    np.testing.assert_allclose(S, tS, rtol=1e-12)
    sign = np.sign((U * tU).sum(0))
    np.testing.assert_allclose(U * sign, tU, atol=1e-9)
    np.testing.assert_allclose(Vh * sign[:, None], tVh, atol=1e-9)


def test_gradient_matches_torch(threads):
    """svd's backward reads its outputs: on the blocked path it must still agree with PyTorch's"""
    rng = np.random.default_rng(5)
    Q1, _ = np.linalg.qr(rng.standard_normal((150, 130)))
    Q2, _ = np.linalg.qr(rng.standard_normal((130, 130)))
    A = (Q1 * np.linspace(5, 1, 130)) @ Q2.T
    G, H = rng.standard_normal((150, 130)), rng.standard_normal((150, 130))

    def loss(lib, X):
        U, S, Vh = lib.linalg.svd(X, full_matrices=False)
        # invariant under the vectors' signs: the reconstruction and the top-3 projector
        return ((U * S.unsqueeze(-2)) @ Vh * lib.tensor(G)).sum() + (U[:, :3] @ Vh[:3] * lib.tensor(H)).sum() + S.sum()

    x, tx = loom.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
    loss(loom, x).backward()
    loss(torch, tx).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200])
def test_tiny_and_huge_norms_are_scaled(scale):
    """gesdd's scaling into [smlnum, bignum]: the values keep their full precision"""
    A = np.random.default_rng(2).standard_normal((200, 180))
    U, S, Vh = (x.numpy() for x in LA.svd(loom.tensor(A * scale), full_matrices=False))
    ref = np.linalg.svd(A, compute_uv=False)
    np.testing.assert_allclose(S / scale, ref, rtol=1e-12)
    np.testing.assert_allclose((U * (S / scale)) @ Vh, A, atol=1e-12)


def test_nan_input_raises_as_gesdd():
    A = np.random.default_rng(4).standard_normal((200, 200))
    A[3, 5] = np.nan
    for f in (LA.svd, LA.svdvals):
        with pytest.raises(LA.LinAlgError):
            f(loom.tensor(A))
