"""loom.linalg against PyTorch and NumPy: values, batches, errors (LinAlgError with the batch
index), and the gradchecks the generated tests cannot run (symmetric inputs, gauge-free SVD)."""
import numpy as np
import pytest

import loom
from loom import linalg as LA

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)


def t(a, grad=False):
    return loom.tensor(np.asarray(a), requires_grad=grad)


def spd(*shape):
    x = rng.standard_normal(shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_decompositions_match_torch_batched(dtype):
    A = rng.standard_normal((5, 2, 4, 4)).astype(dtype)
    B = rng.standard_normal((5, 2, 4, 3)).astype(dtype)
    S = spd(5, 4, 4).astype(dtype)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    TA, TB, TS = (torch.tensor(x) for x in (A, B, S))
    np.testing.assert_allclose(LA.solve(t(A), t(B)).numpy(), torch.linalg.solve(TA, TB).numpy(), **tol)
    np.testing.assert_allclose(LA.solve(t(A), t(B[..., 0])).numpy(), torch.linalg.solve(TA, TB[..., 0]).numpy(), **tol)
    np.testing.assert_allclose(LA.solve(t(A), t(B[0, 0].T), left=False).numpy(),
                               torch.linalg.solve(TA, TB[0, 0].T, left=False).numpy(), **tol)
    np.testing.assert_allclose(LA.inv(t(A)).numpy(), torch.linalg.inv(TA).numpy(), **tol)
    np.testing.assert_allclose(LA.det(t(A)).numpy(), torch.linalg.det(TA).numpy(), **tol)
    s, l = LA.slogdet(t(A))
    ts, tl = torch.linalg.slogdet(TA)
    np.testing.assert_allclose(s.numpy(), ts.numpy())
    np.testing.assert_allclose(l.numpy(), tl.numpy(), **tol)
    np.testing.assert_allclose(LA.cholesky(t(S)).numpy(), torch.linalg.cholesky(TS).numpy(), **tol)
    np.testing.assert_allclose(LA.cholesky(t(S), upper=True).numpy(), torch.linalg.cholesky(TS, upper=True).numpy(), **tol)
    w, v = LA.eigh(t(S))
    tw, tv = torch.linalg.eigh(TS)
    np.testing.assert_allclose(w.numpy(), tw.numpy(), **tol)
    np.testing.assert_allclose(np.abs((v.numpy() * tv.numpy()).sum(-2)), 1, **tol)   # same vectors up to sign
    np.testing.assert_allclose(LA.eigvalsh(t(S), UPLO="U").numpy(), tw.numpy(), **tol)
    for mode in ("reduced", "complete", "r"):
        Q, R = LA.qr(t(A[..., :3]), mode=mode)
        tQ, tR = torch.linalg.qr(TA[..., :3], mode=mode)
        np.testing.assert_allclose(np.abs(R.numpy()), np.abs(tR.numpy()), **tol)
        assert tuple(Q.shape) == tuple(tQ.shape)
        if mode != "r":
            np.testing.assert_allclose((Q @ R).numpy() if mode == "reduced" else Q.numpy() @ R.numpy(), A[..., :3], **tol)
    for full in (True, False):
        for shape in ((3, 5), (5, 3)):
            M = rng.standard_normal((2,) + shape).astype(dtype)
            U, Sv, Vh = LA.svd(t(M), full_matrices=full)
            tU, tS, tVh = torch.linalg.svd(torch.tensor(M), full_matrices=full)
            assert U.shape == tuple(tU.shape) and Vh.shape == tuple(tVh.shape)
            np.testing.assert_allclose(Sv.numpy(), tS.numpy(), **tol)
            k = min(shape)
            np.testing.assert_allclose((U.numpy()[..., :k] * Sv.numpy()[..., None, :]) @ Vh.numpy()[..., :k, :], M, **tol)
            np.testing.assert_allclose(LA.svdvals(t(M)).numpy(), tS.numpy(), **tol)


def test_triangular_lu_and_cholesky_solves():
    A, B = rng.standard_normal((3, 4, 4)) + 4 * np.eye(4), rng.standard_normal((3, 4, 2))
    TA, TB = torch.tensor(A), torch.tensor(B)
    for upper in (True, False):
        for left in (True, False):
            Bm = B if left else np.swapaxes(B, -1, -2)
            for unit in (True, False):
                got = LA.solve_triangular(t(A), t(Bm), upper=upper, left=left, unitriangular=unit)
                want = torch.linalg.solve_triangular(TA, torch.tensor(Bm), upper=upper, left=left, unitriangular=unit)
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)
    LU, piv = LA.lu_factor(t(A))
    tLU, tpiv = torch.linalg.lu_factor(TA)
    np.testing.assert_allclose(LU.numpy(), tLU.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(piv.numpy(), tpiv.numpy())
    for adjoint in (False, True):
        np.testing.assert_allclose(LA.lu_solve(LU, piv, t(B), adjoint=adjoint).numpy(),
                                   torch.linalg.lu_solve(tLU, tpiv, TB, adjoint=adjoint).numpy(), rtol=1e-10)
    P, L, U = LA.lu(t(A[..., :3]))
    tP, tL, tU = torch.linalg.lu(TA[..., :3])
    for a, b in ((P, tP), (L, tL), (U, tU)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)
    S = spd(3, 4, 4)
    L = LA.cholesky(t(S))
    np.testing.assert_allclose(loom.cholesky_solve(t(B), L).numpy(),
                               torch.cholesky_solve(TB, torch.linalg.cholesky(torch.tensor(S))).numpy(), rtol=1e-10)
    np.testing.assert_allclose(loom.cholesky_inverse(L[0]).numpy(), np.linalg.inv(S[0]), rtol=1e-10)


def test_composites_match_torch():
    A = rng.standard_normal((2, 5, 3))
    B = rng.standard_normal((2, 5, 2))
    TA = torch.tensor(A)
    np.testing.assert_allclose(LA.pinv(t(A)).numpy(), torch.linalg.pinv(TA).numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(LA.lstsq(t(A), t(B)).solution.numpy(),
                               torch.linalg.lstsq(TA, torch.tensor(B), driver="gelsd").solution.numpy(), rtol=1e-8)
    low = A[0] @ rng.standard_normal((3, 4))
    low[:, 0] = low[:, 1]
    assert LA.matrix_rank(t(low)).item() == torch.linalg.matrix_rank(torch.tensor(low)).item()
    Q = rng.standard_normal((3, 3))
    for n in (-3, 0, 1, 5):
        np.testing.assert_allclose(LA.matrix_power(t(Q), n).numpy(), torch.linalg.matrix_power(torch.tensor(Q), n).numpy(),
                                   rtol=1e-9, atol=1e-12)
    for scale in (0.01, 1, 30):
        want = torch.linalg.matrix_exp(torch.tensor(Q * scale)).numpy()
        np.testing.assert_allclose(LA.matrix_exp(t(Q * scale)).numpy(), want, rtol=1e-9, atol=1e-12 * np.abs(want).max())
    ms = [rng.standard_normal(s) for s in ((4,), (4, 7), (7, 2), (2, 3))]
    np.testing.assert_allclose(LA.multi_dot([t(m) for m in ms]).numpy(), np.linalg.multi_dot(ms), rtol=1e-12)
    u, v = rng.standard_normal((4, 3)), rng.standard_normal((1, 3))
    np.testing.assert_allclose(LA.cross(t(u), t(v)).numpy(), np.cross(u, v), rtol=1e-12)
    np.testing.assert_allclose(LA.vecdot(t(u), t(v)).numpy(), (u * v).sum(-1), rtol=1e-12)
    x = rng.standard_normal(4)
    np.testing.assert_allclose(LA.vander(t(x)).numpy(), torch.linalg.vander(torch.tensor(x)).numpy(), rtol=1e-12)
    for p in (None, 2, -2, 1, float("inf"), "fro", "nuc"):
        np.testing.assert_allclose(LA.cond(t(Q), p).numpy(), torch.linalg.cond(torch.tensor(Q), p).numpy(), rtol=1e-9)
    U, S, V = loom.svd(t(A[0]))
    tU, tS, tV = torch.svd(TA[0])
    assert V.shape == tuple(tV.shape)
    np.testing.assert_allclose((U.numpy() * S.numpy()) @ V.numpy().T, A[0], atol=1e-12)
    for M in (spd(3, 3), -spd(3, 3), np.zeros((3, 3))):
        np.testing.assert_allclose(loom.logdet(t(M)).item(), torch.logdet(torch.tensor(M)).item(), rtol=1e-12)


def test_singular_inputs_raise_linalg_error_with_the_batch_element():
    A = np.stack([np.eye(3)] * 5)
    A[3, 2, 2] = 0
    with pytest.raises(LA.LinAlgError, match=r"^linalg.inv: \(Batch element 3\): The diagonal element 3 is zero, "
                       "the inversion could not be completed because the input matrix is singular."):
        LA.inv(t(A))
    assert issubclass(LA.LinAlgError, RuntimeError)
    with pytest.raises(LA.LinAlgError, match=r"^linalg.inv: The diagonal element 3 is zero"):
        LA.inv(t(A[3]))
    inv, info = LA.inv_ex(t(A))
    np.testing.assert_array_equal(info.numpy(), torch.linalg.inv_ex(torch.tensor(A)).info.numpy())
    with pytest.raises(LA.LinAlgError, match=r"^linalg.solve: \(Batch element 3\): The solver failed"):
        LA.solve(t(A), t(np.ones((5, 3))))
    S = spd(2, 3, 3)
    S[1, 1, 1] = -5
    with pytest.raises(LA.LinAlgError, match=r"linalg.cholesky: \(Batch element 1\): The factorization could not be "
                       r"completed because the input is not positive-definite \(the leading minor of order 2"):
        LA.cholesky(t(S))
    L, info = LA.cholesky_ex(t(S))
    np.testing.assert_array_equal(info.numpy(), torch.linalg.cholesky_ex(torch.tensor(S)).info.numpy())
    assert LA.det(t(A[3])).item() == 0
    with pytest.raises(RuntimeError, match=r"^linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"):
        LA.inv(t(np.ones((2, 3))))
    with pytest.raises(RuntimeError, match="floating point"):
        LA.inv(loom.ones(2, 2, dtype=loom.int64))
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        LA.qr(t(np.eye(2)), mode="full")


def test_empty_and_batched_shapes():
    assert LA.inv(loom.zeros(0, 3, 3, dtype=loom.float64)).shape == (0, 3, 3)
    assert LA.det(loom.zeros(2, 0, 0, dtype=loom.float64)).numpy().tolist() == [1.0, 1.0]
    U, S, Vh = LA.svd(loom.zeros(2, 0, 3, dtype=loom.float64))
    assert U.shape == (2, 0, 0) and S.shape == (2, 0) and Vh.shape == (2, 3, 3)
    big = rng.standard_normal((256, 8, 8))
    np.testing.assert_allclose(LA.solve(t(big), t(big)).numpy(), np.broadcast_to(np.eye(8), big.shape), atol=1e-9)


def _sym(f):
    """f of the symmetric part: gradcheck then perturbs A and A^T together (PyTorch's wrapper)."""
    return lambda A: f((A + A.transpose(-2, -1)) * 0.5)


GRAD_CASES = {
    "cholesky": (_sym(lambda A: LA.cholesky(A)), lambda: spd(2, 3, 3)),
    "cholesky_upper": (_sym(lambda A: LA.cholesky(A, upper=True)), lambda: spd(3, 3)),
    "eigh_vectors": (_sym(lambda A: LA.eigh(A).eigenvectors * LA.eigh(A).eigenvectors[..., :1, :]), lambda: spd(2, 3, 3)),
    "eigh_values": (_sym(lambda A: LA.eigh(A).eigenvalues), lambda: spd(3, 3)),
    "eigvalsh": (_sym(LA.eigvalsh), lambda: spd(3, 3)),
    "svd_tall": (lambda A: (lambda U, S, Vh: ((U * S.unsqueeze(-2)) @ Vh).sum(-1) + (U * U).sum(-1))(*LA.svd(A, full_matrices=False)),
                 lambda: rng.standard_normal((2, 4, 3))),
    "svd_wide": (lambda A: (lambda U, S, Vh: Vh.transpose(-2, -1) @ Vh + S.sum())(*LA.svd(A, full_matrices=False)),
                 lambda: rng.standard_normal((3, 5))),
    "svdvals": (LA.svdvals, lambda: rng.standard_normal((4, 3))),
    "qr_wide": (lambda A: LA.qr(A).Q.sum(-1) + LA.qr(A).R.sum(-1), lambda: rng.standard_normal((3, 5))[None].repeat(2, 0)),
    "qr_tall": (lambda A: LA.qr(A).Q.sum() + LA.qr(A).R.sum(), lambda: rng.standard_normal((5, 3))),
    "lu_solve_b": (lambda B: LA.lu_solve(*LA.lu_factor(t(np.eye(3) * 3 + 0.5)), B, adjoint=True), lambda: rng.standard_normal((3, 2))),
    "pinv": (LA.pinv, lambda: rng.standard_normal((4, 3))),
    "matrix_exp": (LA.matrix_exp, lambda: rng.standard_normal((3, 3))),
    "det_batched": (LA.det, lambda: rng.standard_normal((2, 3, 3))),
    "solve_broadcast": (lambda A: LA.solve(A, t(np.ones((2, 1, 3, 2)))), lambda: rng.standard_normal((3, 3, 3)) + 3 * np.eye(3)),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck_and_gradgradcheck(name):
    f, make = GRAD_CASES[name]
    x = t(make(), grad=True)
    fx = (lambda a: f(a)[0] if isinstance(f(a), tuple) else f(a))
    assert loom.autograd.gradcheck(fx, (x,))
    assert loom.autograd.gradgradcheck(fx, (x,))


def test_gradients_match_torch_for_symmetric_ops():
    S = spd(3, 3)
    g = rng.standard_normal((3, 3))
    for lf, tf in ((lambda A: LA.eigh(A)[1], lambda A: torch.linalg.eigh(A)[1]),
                   (lambda A: LA.cholesky(A), lambda A: torch.linalg.cholesky(A))):
        x, tx = t(S, grad=True), torch.tensor(S, requires_grad=True)
        out, tout = lf(x), tf(tx)
        sign = np.sign((out.detach().numpy() * tout.detach().numpy()).sum(0))   # eigenvector signs may differ
        (out * t(g * sign)).sum().backward()
        (tout * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_init_orthogonal_and_trunc_normal():
    w = loom.empty(4, 2, 3)
    loom.nn.init.orthogonal_(w, gain=2)
    m = w.reshape(4, 6).numpy()
    np.testing.assert_allclose(m @ m.T, 4 * np.eye(4), atol=1e-5)
    x = loom.empty(20000)
    loom.nn.init.trunc_normal_(x, mean=1.0, std=2.0, a=-1.0, b=2.0)
    v = x.numpy()
    assert v.min() >= -1.0 and v.max() <= 2.0
    assert abs(v.mean() - 0.5 * (1 + 0) ) < 0.5 and v.std() > 0.5


@pytest.mark.parametrize("n", [1, 2, 7, 16, 17, 40])
def test_small_and_lapack_paths_agree_with_torch(n):
    # n <= 16 runs loom's own unblocked loops, above LAPACK's: both must give LAPACK's results
    A = rng.standard_normal((3, n, n)) + np.sqrt(n) * np.eye(n)
    B = rng.standard_normal((3, n, 2))
    S = spd(3, n, n)
    TA, TB = torch.tensor(A), torch.tensor(B)
    np.testing.assert_allclose(LA.solve(t(A), t(B)).numpy(), torch.linalg.solve(TA, TB).numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(LA.inv(t(A)).numpy(), torch.linalg.inv(TA).numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(LA.det(t(A)).numpy(), torch.linalg.det(TA).numpy(), rtol=1e-9)
    np.testing.assert_allclose(LA.cholesky(t(S)).numpy(), torch.linalg.cholesky(torch.tensor(S)).numpy(), rtol=1e-10, atol=1e-12)
    LU, piv = LA.lu_factor(t(A))
    tLU, tpiv = torch.linalg.lu_factor(TA)
    np.testing.assert_array_equal(piv.numpy(), tpiv.numpy())
    for adjoint in (False, True):
        np.testing.assert_allclose(LA.lu_solve(LU, piv, t(B), adjoint=adjoint).numpy(),
                                   torch.linalg.lu_solve(tLU, tpiv, TB, adjoint=adjoint).numpy(), rtol=1e-9, atol=1e-12)
    for M in (A, A[:, :, : (n + 1) // 2], A[:, : (n + 1) // 2, :]):   # square, tall, wide
        for mode in ("reduced", "complete"):
            Q, R = LA.qr(t(M), mode=mode)
            tQ, tR = torch.linalg.qr(torch.tensor(M), mode=mode)
            np.testing.assert_allclose(Q.numpy(), tQ.numpy(), rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(R.numpy(), tR.numpy(), rtol=1e-9, atol=1e-12)
    sing = A.copy()
    sing[1, :, -1] = 0
    np.testing.assert_array_equal(LA.inv_ex(t(sing)).info.numpy(), torch.linalg.inv_ex(torch.tensor(sing)).info.numpy())
    bad = S.copy()
    bad[2, -1, -1] = -1e3
    np.testing.assert_array_equal(LA.cholesky_ex(t(bad)).info.numpy(),
                                  torch.linalg.cholesky_ex(torch.tensor(bad)).info.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_qr_edge_cases_match_torch(dtype):
    # zero columns (no reflector), a column already reduced, and scales whose plain sums of squares
    # would under/overflow (loom's loops hand those to LAPACK's scaled norms)
    tiny, huge = (1e-30, 1e30) if dtype == "float32" else (1e-200, 1e200)
    base = rng.standard_normal((5, 4))
    cases = [np.zeros((5, 4)), np.triu(base), base * tiny, base * huge, np.c_[base[:, :1], np.zeros((5, 1)), base[:, 2:]],
             np.eye(5, 4) * -2.0]
    for M in cases:
        M = M.astype(dtype)
        Q, R = LA.qr(t(M))
        tQ, tR = torch.linalg.qr(torch.tensor(M))
        scale = max(np.abs(M).max(), np.finfo(dtype).tiny)
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(Q.numpy(), tQ.numpy(), atol=tol)
        np.testing.assert_allclose(R.numpy() / scale, tR.numpy() / scale, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_svd_matches_torch(dtype):
    # up to 16 columns (and rows >= columns) loom's one-sided Jacobi answers; rank-deficient, zero,
    # badly scaled or non-finite matrices go to LAPACK: every kind must give torch's singular values
    # and orthonormal factors that rebuild A
    tol = 2e-5 if dtype == "float32" else 1e-12
    cases = [rng.standard_normal(s) for s in ((1, 1), (3, 1), (2, 2), (8, 8), (16, 16), (16, 5), (12, 3), (5, 12),
                                              (17, 17), (40, 6))]
    Q1, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    Q2, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    cases += [Q1 @ np.diag([3, 3, 3, 1, 1e-3, 1e-9]) @ Q2,   # repeated and tiny singular values
              rng.standard_normal((6, 2)) @ rng.standard_normal((2, 6)),   # rank 2
              np.zeros((4, 4)), np.eye(5) * 1e-200 if dtype == "float64" else np.eye(5) * 1e-35,
              rng.standard_normal((7, 7)) * 1e150 if dtype == "float64" else rng.standard_normal((7, 7)) * 1e20]
    for M in cases:
        M = M.astype(dtype)
        scale = max(np.abs(M).max(), np.finfo(dtype).tiny)
        for full in (False, True):
            U, S, Vh = LA.svd(t(M), full_matrices=full)
            tU, tS, tVh = torch.linalg.svd(torch.tensor(M), full_matrices=full)
            assert U.shape == tuple(tU.shape) and Vh.shape == tuple(tVh.shape) and S.dtype.name == dtype
            np.testing.assert_allclose(S.numpy() / scale, tS.numpy() / scale, atol=tol)
            k = min(M.shape)
            u, vh = U.numpy(), Vh.numpy()
            np.testing.assert_allclose(u.T @ u, np.eye(u.shape[1]), atol=tol * 10)
            np.testing.assert_allclose(vh @ vh.T, np.eye(vh.shape[0]), atol=tol * 10)
            np.testing.assert_allclose((u[:, :k] * S.numpy()) @ vh[:k] / scale, M / scale, atol=tol * 10)
        np.testing.assert_allclose(LA.svdvals(t(M)).numpy() / scale, tS.numpy() / scale, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_eigh_matches_torch(dtype):
    # up to 16x16 loom's tridiagonal QL answers (LAPACK beyond, and where it declines: scales whose
    # squares would under/overflow); repeated, clustered, zero and negative eigenvalues, either triangle
    tol = 3e-5 if dtype == "float32" else 1e-12
    def sym(n):
        x = rng.standard_normal((n, n))
        return x + x.T
    Q, _ = np.linalg.qr(rng.standard_normal((7, 7)))
    cases = [sym(n) for n in (1, 2, 3, 8, 15, 16, 17, 30)]
    cases += [np.eye(5), np.zeros((4, 4)), np.diag([2.0, -1, 2, 2, -1, 0]), Q @ np.diag([1, 1 + 1e-12, 1, 5, 5, -3, 1e-9]) @ Q.T,
              sym(6) * (1e-200 if dtype == "float64" else 1e-30), sym(6) * (1e200 if dtype == "float64" else 1e30),
              np.diag(np.arange(8.0)) + np.diag(np.full(7, 1e-20), 1) + np.diag(np.full(7, 1e-20), -1)]
    for A in cases:
        A = A.astype(dtype)
        n = A.shape[-1]
        scale = max(np.abs(A).max(), np.finfo(dtype).tiny)
        for uplo in ("L", "U"):
            junk = A.copy()   # the unread triangle must not matter
            junk[np.triu_indices(n, 1) if uplo == "L" else np.tril_indices(n, -1)] = 7.0
            w, V = LA.eigh(t(junk), UPLO=uplo)
            tw = torch.linalg.eigvalsh(torch.tensor(A))
            np.testing.assert_allclose(w.numpy() / scale, tw.numpy() / scale, atol=tol)
            v = V.numpy()
            np.testing.assert_allclose(v.T @ v, np.eye(n), atol=tol * 10)
            np.testing.assert_allclose((A @ v - v * w.numpy()) / scale, 0, atol=tol * 10)
            np.testing.assert_allclose(LA.eigvalsh(t(junk), UPLO=uplo).numpy() / scale, tw.numpy() / scale, atol=tol)


def test_torch_namespace_aliases():
    A = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    B = rng.standard_normal((3, 2))
    TA = torch.tensor(A)
    np.testing.assert_allclose(loom.inverse(t(A)).numpy(), torch.inverse(TA).numpy(), rtol=1e-12)
    np.testing.assert_allclose(loom.pinverse(t(A[:, :2]), 1e-10).numpy(), torch.pinverse(TA[:, :2], 1e-10).numpy(), rtol=1e-10)
    LU, piv = torch.linalg.lu_factor(TA)
    np.testing.assert_allclose(loom.lu_solve(t(B), t(LU.numpy()), t(piv.numpy())).numpy(),
                               torch.linalg.lu_solve(LU, piv, torch.tensor(B)).numpy(), rtol=1e-12)
    for name in ("det", "logdet", "matrix_exp"):
        np.testing.assert_allclose(getattr(loom, name)(t(A)).numpy(), getattr(torch, name)(TA).numpy(), rtol=1e-12)
    np.testing.assert_allclose(loom.matrix_power(t(A), 3).numpy(), torch.matrix_power(TA, 3).numpy(), rtol=1e-12)
    s, l = loom.slogdet(t(A))
    np.testing.assert_allclose(l.item(), torch.slogdet(TA).logabsdet.item(), rtol=1e-12)
    U, S, V = loom.svd(t(A[:, :2]), some=False)
    assert U.shape == (3, 3) and V.shape == (2, 2)
    U, S, V = loom.svd(t(A), compute_uv=False)
    assert np.all(U.numpy() == 0) and S.shape == (3,)
