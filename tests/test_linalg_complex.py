"""loom.linalg on complex64/complex128 against PyTorch: values, result dtypes (real eigenvalues of
eigh, real singular values, real logabsdet, complex sign), batches, the singular / not
positive-definite error paths, and complex gradients (against torch.autograd and by gradcheck /
gradgradcheck, which perturb real and imaginary parts)."""
import numpy as np
import pytest

import loom
from loom import linalg as LA

torch = pytest.importorskip("torch")
rng = np.random.default_rng(7)

CDTYPES = ["complex64", "complex128"]
REAL = {"complex64": "float32", "complex128": "float64"}
TOL = {"complex64": dict(rtol=2e-4, atol=2e-4), "complex128": dict(rtol=1e-10, atol=1e-10)}


def cplx(*shape, dtype="complex128"):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def hpd(*shape, dtype="complex128"):
    """Hermitian positive-definite matrices."""
    x = cplx(*shape)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def t(a, grad=False):
    return loom.tensor(np.asarray(a), requires_grad=grad)


def close(got, want, **tol):
    want = want.detach().resolve_conj().numpy() if hasattr(want, "detach") else want
    assert got.dtype.name == str(want.dtype), (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want, **tol)


def same_up_to_phase(V, TV, tol):
    """Columns of V and TV agree up to a unit factor each: |<v_i, tv_i>| = 1."""
    np.testing.assert_allclose(np.abs((np.conj(V) * TV).sum(-2)), 1, **tol)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_solvers_match_torch(dtype):
    tol = TOL[dtype]
    A = cplx(5, 2, 4, 4, dtype=dtype) + (2 * np.eye(4)).astype(dtype)
    B = cplx(5, 2, 4, 3, dtype=dtype)
    TA, TB = torch.tensor(A), torch.tensor(B)
    close(LA.solve(t(A), t(B)), torch.linalg.solve(TA, TB), **tol)
    close(LA.solve(t(A), t(B[..., 0])), torch.linalg.solve(TA, TB[..., 0]), **tol)
    close(LA.solve(t(A), t(B[0, 0].T), left=False), torch.linalg.solve(TA, TB[0, 0].T, left=False), **tol)
    close(LA.solve(t(A[0, 0]), t(B)), torch.linalg.solve(TA[0, 0], TB), **tol)   # broadcast batch
    X, info = LA.solve_ex(t(A), t(B))
    tX, tinfo = torch.linalg.solve_ex(TA, TB)
    close(X, tX, **tol)
    close(info, tinfo)
    close(loom._ops._linalg_solve_ex(t(A), t(B))[0], tX, **tol)
    close(LA.inv(t(A)), torch.linalg.inv(TA), **tol)
    close(LA.inv_ex(t(A)).inverse, torch.linalg.inv_ex(TA).inverse, **tol)
    close(LA.det(t(A)), torch.linalg.det(TA), **tol)
    s, l = LA.slogdet(t(A))
    ts, tl = torch.linalg.slogdet(TA)
    close(s, ts, **tol)   # a complex sign on the unit circle
    close(l, tl, **tol)   # a real logabsdet
    close(loom.logdet(t(A)), torch.logdet(TA), **tol)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_triangular_lu_and_cholesky_match_torch(dtype):
    tol = TOL[dtype]
    A = cplx(3, 4, 4, dtype=dtype) + (4 * np.eye(4)).astype(dtype)
    B = cplx(3, 4, 2, dtype=dtype)
    TA, TB = torch.tensor(A), torch.tensor(B)
    for upper in (True, False):
        for left in (True, False):
            Bm = B if left else np.swapaxes(B, -1, -2)
            for unit in (True, False):
                close(LA.solve_triangular(t(A), t(Bm), upper=upper, left=left, unitriangular=unit),
                      torch.linalg.solve_triangular(TA, torch.tensor(Bm), upper=upper, left=left, unitriangular=unit),
                      **tol)
    LU, piv = LA.lu_factor(t(A))
    tLU, tpiv = torch.linalg.lu_factor(TA)
    close(LU, tLU, **tol)
    close(piv, tpiv)
    for adjoint in (False, True):
        close(LA.lu_solve(LU, piv, t(B), adjoint=adjoint), torch.linalg.lu_solve(tLU, tpiv, TB, adjoint=adjoint), **tol)
        Bt = np.swapaxes(B, -1, -2)
        close(LA.lu_solve(LU, piv, t(Bt), left=False, adjoint=adjoint),
              torch.linalg.lu_solve(tLU, tpiv, torch.tensor(Bt), left=False, adjoint=adjoint), **tol)
    for shape in ((4, 3), (3, 4)):
        P, L, U = LA.lu(t(A[..., :shape[0], :shape[1]]))
        tP, tL, tU = torch.linalg.lu(TA[..., :shape[0], :shape[1]])
        for a, b in ((P, tP), (L, tL), (U, tU)):
            close(a, b, **tol)
    S = hpd(3, 4, 4, dtype=dtype)
    TS = torch.tensor(S)
    L = LA.cholesky(t(S))
    close(L, torch.linalg.cholesky(TS), **tol)
    close(LA.cholesky(t(S), upper=True), torch.linalg.cholesky(TS, upper=True), **tol)
    close(LA.cholesky_ex(t(S)).L, torch.linalg.cholesky_ex(TS).L, **tol)
    close(loom.cholesky_solve(t(B), L), torch.cholesky_solve(TB, torch.linalg.cholesky(TS)), **tol)
    close(loom.cholesky_solve(t(B), LA.cholesky(t(S), upper=True), upper=True),
          torch.cholesky_solve(TB, torch.linalg.cholesky(TS, upper=True), upper=True), **tol)
    close(loom.cholesky_inverse(L[0]), torch.cholesky_inverse(torch.linalg.cholesky(TS[0])), **tol)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_decompositions_match_torch(dtype):
    tol = TOL[dtype]
    S = hpd(2, 3, 5, 5, dtype=dtype)
    w, v = LA.eigh(t(S))
    tw, tv = torch.linalg.eigh(torch.tensor(S))
    close(w, tw, **tol)   # real eigenvalues
    assert v.dtype.name == dtype
    same_up_to_phase(v.numpy(), tv.numpy(), tol)
    close(LA.eigvalsh(t(S), UPLO="U"), torch.linalg.eigvalsh(torch.tensor(S), UPLO="U"), **tol)
    # eigh reads one triangle: garbage in the other must not matter
    junk = np.tril(S) + np.triu(cplx(5, 5, dtype=dtype), 1)
    close(LA.eigvalsh(t(junk)), torch.linalg.eigvalsh(torch.tensor(junk)), **tol)
    A = cplx(2, 5, 3, dtype=dtype)
    for shape in ((5, 3), (3, 5), (4, 4)):
        M = cplx(2, *shape, dtype=dtype)
        for mode in ("reduced", "complete", "r"):
            Q, R = LA.qr(t(M), mode=mode)
            tQ, tR = torch.linalg.qr(torch.tensor(M), mode=mode)
            close(R, tR, **tol)   # LAPACK's convention on both sides: a real diagonal
            close(Q, tQ, **tol)
        for full in (True, False):
            U, Sv, Vh = LA.svd(t(M), full_matrices=full)
            tU, tS, tVh = torch.linalg.svd(torch.tensor(M), full_matrices=full)
            close(Sv, tS, **tol)
            assert U.dtype.name == Vh.dtype.name == dtype
            assert tuple(U.shape) == tuple(tU.shape) and tuple(Vh.shape) == tuple(tVh.shape)
            k = min(shape)
            np.testing.assert_allclose((U.numpy()[..., :k] * Sv.numpy()[..., None, :]) @ Vh.numpy()[..., :k, :], M, **tol)
            same_up_to_phase(U.numpy()[..., :k], tU.numpy()[..., :k], tol)
        close(LA.svdvals(t(M)), torch.linalg.svdvals(torch.tensor(M)), **tol)
    U, S_, V = loom.svd(t(A[0]))
    tU, tS, tV = torch.svd(torch.tensor(A[0]))
    np.testing.assert_allclose((U.numpy() * S_.numpy()) @ np.conj(V.numpy()).T, A[0], **tol)   # torch.svd's V
    assert tuple(V.shape) == tuple(tV.shape)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_composites_match_torch(dtype):
    tol = TOL[dtype]
    A = cplx(2, 5, 3, dtype=dtype)
    B = cplx(2, 5, 2, dtype=dtype)
    TA = torch.tensor(A)
    close(LA.pinv(t(A)), torch.linalg.pinv(TA), **tol)
    got, want = LA.lstsq(t(A), t(B)), torch.linalg.lstsq(TA, torch.tensor(B), driver="gelsd")
    close(got.solution, want.solution, **tol)
    close(got.residuals, want.residuals, **tol)
    close(got.singular_values, want.singular_values, **tol)
    low = A[0] @ cplx(3, 4, dtype=dtype)
    assert LA.matrix_rank(t(low)).item() == torch.linalg.matrix_rank(torch.tensor(low)).item() == 3
    Q = cplx(3, 3, dtype=dtype)
    for p in (None, 2, -2, 1, -1, float("inf"), "fro", "nuc"):
        close(LA.cond(t(Q), p), torch.linalg.cond(torch.tensor(Q), p), **tol)
    for scale in (0.01, 1, 10):
        want = torch.linalg.matrix_exp(torch.tensor(Q * scale)).numpy()
        got = LA.matrix_exp(t((Q * scale).astype(dtype)))
        assert got.dtype.name == dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=tol["rtol"] * 10, atol=tol["atol"] * np.abs(want).max())
    close(LA.matrix_norm(t(Q), "nuc"), torch.linalg.matrix_norm(torch.tensor(Q), "nuc"), **tol)
    close(LA.norm(t(Q)), torch.linalg.norm(torch.tensor(Q)), **tol)


def test_householder_product_and_matrix_power_match_torch():
    A = cplx(2, 5, 3)
    a, tau = torch.geqrf(torch.tensor(A))
    close(LA.householder_product(t(a.numpy()), t(tau.numpy())), torch.linalg.householder_product(a, tau), rtol=1e-10,
          atol=1e-12)
    Q = cplx(2, 3, 3)
    for n in (-2, 0, 1, 3):
        close(LA.matrix_power(t(Q), n), torch.linalg.matrix_power(torch.tensor(Q), n), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [1, 3, 16, 17, 40])
def test_sizes_and_layouts(n):
    # complex matrices always take LAPACK (the small unrolled loops are real-only): every size agrees
    A = cplx(3, n, n) + np.sqrt(n) * np.eye(n)
    B = cplx(3, n, 2)
    TA, TB = torch.tensor(A), torch.tensor(B)
    tol = dict(rtol=1e-9, atol=1e-11)
    close(LA.solve(t(A), t(B)), torch.linalg.solve(TA, TB), **tol)
    close(LA.det(t(A)), torch.linalg.det(TA), **tol)
    # a conjugate-transposed (non-contiguous) view reads as the matrix it shows
    AH = np.conj(np.swapaxes(A, -1, -2))
    close(LA.inv(t(A).mH), torch.linalg.inv(torch.tensor(AH)), **tol)
    S = hpd(3, n, n)
    close(LA.cholesky(t(S)), torch.linalg.cholesky(torch.tensor(S)), **tol)


def test_empty_and_batch_shapes():
    for dt in (loom.complex64, loom.complex128):
        tdt = getattr(torch, dt.name)
        assert LA.inv(loom.zeros(0, 3, 3, dtype=dt)).shape == (0, 3, 3)
        d = LA.det(loom.zeros(2, 0, 0, dtype=dt))
        assert d.dtype == dt and d.numpy().tolist() == [1, 1]
        s, l = LA.slogdet(loom.zeros(2, 0, 0, dtype=dt))
        ts, tl = torch.linalg.slogdet(torch.zeros(2, 0, 0, dtype=tdt))
        close(s, ts)
        close(l, tl)
        U, S, Vh = LA.svd(loom.zeros(2, 0, 3, dtype=dt))
        assert U.shape == (2, 0, 0) and S.shape == (2, 0) and Vh.shape == (2, 3, 3) and S.dtype.name == REAL[dt.name]
        w, v = LA.eigh(loom.zeros(4, 0, 0, dtype=dt))
        assert w.dtype.name == REAL[dt.name] and v.dtype == dt and w.shape == (4, 0)
    big = cplx(256, 8, 8)
    np.testing.assert_allclose(LA.solve(t(big), t(big)).numpy(), np.broadcast_to(np.eye(8), big.shape), atol=1e-9)


def test_singular_and_not_positive_definite_raise():
    A = np.stack([np.eye(3, dtype=np.complex128) * (1 + 1j)] * 5)
    A[3, 2, 2] = 0
    TA = torch.tensor(A)
    with pytest.raises(LA.LinAlgError, match=r"^linalg.inv: \(Batch element 3\): The diagonal element 3 is zero, "
                       "the inversion could not be completed because the input matrix is singular."):
        LA.inv(t(A))
    close(LA.inv_ex(t(A)).info, torch.linalg.inv_ex(TA).info)
    with pytest.raises(LA.LinAlgError, match=r"^linalg.solve: \(Batch element 3\): The solver failed"):
        LA.solve(t(A), t(np.ones((5, 3), np.complex128)))
    close(LA.solve_ex(t(A), t(np.ones((5, 3, 1), np.complex128))).info,
          torch.linalg.solve_ex(TA, torch.ones(5, 3, 1, dtype=torch.complex128)).info)
    with pytest.raises(LA.LinAlgError, match=r"^linalg.lu_factor: \(Batch element 3\): U\[3,3\] is zero"):
        LA.lu_factor(t(A))
    close(LA.lu_factor_ex(t(A)).info, torch.linalg.lu_factor_ex(TA).info)
    close(LA.det(t(A)), torch.linalg.det(TA))
    s, l = LA.slogdet(t(A))
    ts, tl = torch.linalg.slogdet(TA)
    close(s, ts)
    close(l, tl)
    S = hpd(2, 3, 3)
    S[1, 1, 1] = -5
    with pytest.raises(LA.LinAlgError, match=r"linalg.cholesky: \(Batch element 1\): The factorization could not be "
                       r"completed because the input is not positive-definite \(the leading minor of order 2"):
        LA.cholesky(t(S))
    close(LA.cholesky_ex(t(S)).info, torch.linalg.cholesky_ex(torch.tensor(S)).info)
    for f in (LA.inv, LA.det, LA.cholesky, LA.eigh):
        with pytest.raises(RuntimeError, match="must be batches of square matrices"):
            f(t(cplx(2, 3)))
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype"):
        LA.solve(t(np.eye(2)), t(cplx(2, 2)))


def test_result_dtypes_match_torch():
    for dt in CDTYPES:
        A = hpd(2, 3, 3, dtype=dt)
        x, tx = t(A), torch.tensor(A)
        pairs = [(LA.eigh(x), torch.linalg.eigh(tx)), (LA.svd(x), torch.linalg.svd(tx)), (LA.slogdet(x), torch.linalg.slogdet(tx)),
                 (LA.qr(x), torch.linalg.qr(tx)), (LA.lu_factor(x), torch.linalg.lu_factor(tx)), (LA.lu(x), torch.linalg.lu(tx)),
                 (LA.cholesky_ex(x), torch.linalg.cholesky_ex(tx)), (LA.inv_ex(x), torch.linalg.inv_ex(tx)),
                 ((LA.svdvals(x), LA.eigvalsh(x), LA.det(x), LA.matrix_rank(x), LA.cond(x), LA.pinv(x)),
                  (torch.linalg.svdvals(tx), torch.linalg.eigvalsh(tx), torch.linalg.det(tx), torch.linalg.matrix_rank(tx),
                   torch.linalg.cond(tx), torch.linalg.pinv(tx)))]
        for got, want in pairs:
            assert [g.dtype.name for g in got] == [str(w.dtype).split(".")[-1] for w in want]


# ---------------------------------------------------------------- gradients
def _herm(f):
    """f of the Hermitian part: gradcheck then perturbs A and A^H together (PyTorch's wrapper)."""
    return lambda A: f((A + A.mH) * 0.5)


W = cplx(5, 5)


def _w(x):
    k, n = x.shape[-2], x.shape[-1]
    return t(W[:k, :n])


def _absw(x):
    """A phase-invariant real function of complex eigen/singular vectors."""
    return (x.abs() * _w(x).real).sum()


# fixed operands: each call of a checked function must see the same ones
C32, C23, C22, C42 = cplx(3, 2), cplx(2, 3), cplx(2, 2), cplx(4, 2)
C33 = cplx(3, 3) + 3 * np.eye(3)
H33 = hpd(3, 3)

GRAD_CASES = {
    "solve_A": (lambda A: LA.solve(A, t(C32)), lambda: cplx(2, 3, 3) + 3 * np.eye(3)),
    "solve_B": (lambda B: LA.solve(t(C33), B), lambda: cplx(2, 3, 2)),
    "solve_left_false": (lambda A: LA.solve(A, t(C23), left=False), lambda: cplx(3, 3) + 3 * np.eye(3)),
    "inv": (LA.inv, lambda: cplx(2, 3, 3) + 3 * np.eye(3)),
    "det": (LA.det, lambda: cplx(2, 3, 3)),
    "slogdet_logabs": (lambda A: LA.slogdet(A).logabsdet, lambda: cplx(2, 3, 3)),
    "slogdet_sign": (lambda A: LA.slogdet(A).sign, lambda: cplx(3, 3)),
    "logdet": (loom.logdet, lambda: cplx(3, 3) + 3 * np.eye(3)),
    "cholesky": (_herm(LA.cholesky), lambda: hpd(2, 3, 3)),
    "cholesky_upper": (_herm(lambda A: LA.cholesky(A, upper=True)), lambda: hpd(3, 3)),
    "solve_triangular": (lambda A: LA.solve_triangular(A, t(C32), upper=True), lambda: cplx(3, 3) + 3 * np.eye(3)),
    "solve_triangular_right_unit": (lambda A: LA.solve_triangular(A, t(C23), upper=False, left=False,
                                                                 unitriangular=True), lambda: cplx(3, 3)),
    "qr_tall": (lambda A: (lambda Q, R: (Q * _w(Q)).sum() + (R * _w(R)).sum())(*LA.qr(A)), lambda: cplx(4, 3)),
    "qr_square": (lambda A: LA.qr(A).Q, lambda: cplx(3, 3)),
    "qr_wide": (lambda A: (lambda Q, R: (Q * _w(Q)).sum() + (R * _w(R)).sum())(*LA.qr(A)), lambda: cplx(2, 3, 5)),
    "eigh_vectors": (_herm(lambda A: (lambda L, V: _absw(V) + (L * _w(L[..., None]).real[..., 0]).sum())(*LA.eigh(A))),
                     lambda: hpd(2, 3, 3)),
    "eigh_projector": (_herm(lambda A: (lambda L, V: V[..., :1] @ V[..., :1].mH)(*LA.eigh(A))), lambda: hpd(3, 3)),
    "eigvalsh": (_herm(LA.eigvalsh), lambda: hpd(3, 3)),
    "svd_square": (lambda A: (lambda U, S, Vh: _absw(U) + _absw(Vh) + S.sum())(*LA.svd(A)), lambda: cplx(2, 3, 3)),
    "svd_tall": (lambda A: (lambda U, S, Vh: ((U * S.unsqueeze(-2)) @ Vh).sum(-1) + (U @ U.mH).sum(-1))(*LA.svd(A, full_matrices=False)),
                 lambda: cplx(4, 3)),
    "svd_wide": (lambda A: (lambda U, S, Vh: Vh.mH @ Vh + S.sum())(*LA.svd(A, full_matrices=False)), lambda: cplx(3, 5)),
    "svd_only_U": (lambda A: _absw(LA.svd(A).U), lambda: cplx(3, 3)),
    "svd_only_Vh": (lambda A: _absw(LA.svd(A, full_matrices=False).Vh), lambda: cplx(2, 4)),
    "svdvals": (LA.svdvals, lambda: cplx(4, 3)),
    "pinv": (LA.pinv, lambda: cplx(4, 3)),
    "lstsq": (lambda A: LA.lstsq(A, t(C42)).solution, lambda: cplx(4, 3)),
    "matrix_exp": (LA.matrix_exp, lambda: cplx(3, 3) * 0.5),
    "lu_solve_b": (lambda B: LA.lu_solve(*LA.lu_factor(t(C33)), B, adjoint=True),
                   lambda: cplx(3, 2)),
    "cholesky_solve_b": (lambda B: loom.cholesky_solve(B, LA.cholesky(t(H33))), lambda: cplx(3, 2)),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck_and_gradgradcheck(name):
    f, make = GRAD_CASES[name]
    x = t(make(), grad=True)
    assert loom.autograd.gradcheck(f, (x,))
    assert loom.autograd.gradgradcheck(f, (x,))


TORCH_GRADS = {
    # name: (loss of the loom results, loss of torch's, input)
    "solve": (lambda m, A: (m.linalg.solve(A, m.ones(3, 2, dtype=A.dtype)) * G(m, 3, 2)).real.sum(),
              lambda: cplx(2, 3, 3) + 3 * np.eye(3)),
    "inv": (lambda m, A: (m.linalg.inv(A) * G(m, 3, 3)).imag.sum(), lambda: cplx(2, 3, 3) + 3 * np.eye(3)),
    "det": (lambda m, A: (m.linalg.det(A) * (1 + 2j)).real.sum(), lambda: cplx(2, 3, 3)),
    "slogdet": (lambda m, A: (lambda s, l: (s * (2 - 1j)).real.sum() + 3 * l.sum())(*m.linalg.slogdet(A)),
                lambda: cplx(2, 3, 3)),
    "cholesky": (lambda m, A: (m.linalg.cholesky(A) * G(m, 3, 3)).real.sum(), lambda: hpd(3, 3)),
    "cholesky_upper": (lambda m, A: (m.linalg.cholesky(A, upper=True) * G(m, 3, 3)).imag.sum(), lambda: hpd(2, 3, 3)),
    "solve_triangular": (lambda m, A: (m.linalg.solve_triangular(A, m.ones(3, 2, dtype=A.dtype), upper=False)
                                       * G(m, 3, 2)).real.sum(), lambda: cplx(3, 3) + 3 * np.eye(3)),
    "qr": (lambda m, A: (lambda Q, R: (Q * G(m, 4, 3)).real.sum() + (R * G(m, 3, 3)).imag.sum())(*m.linalg.qr(A)),
           lambda: cplx(4, 3)),
    "qr_wide": (lambda m, A: (lambda Q, R: (Q * G(m, 3, 3)).real.sum() + (R * G(m, 3, 4)).imag.sum())(*m.linalg.qr(A)),
                lambda: cplx(3, 4)),
    "eigh": (lambda m, A: (lambda L, V: (V.abs() * G(m, 3, 3).real).sum() + (L * L).sum())(*m.linalg.eigh(A)),
             lambda: hpd(2, 3, 3)),
    "svd_tall": (lambda m, A: (lambda U, S, Vh: (U.abs() * G(m, 4, 3).real).sum() + (Vh.abs() * G(m, 3, 3).imag).sum()
                               + (S ** 2).sum())(*m.linalg.svd(A, full_matrices=False)), lambda: cplx(2, 4, 3)),
    "svd_wide_U_only": (lambda m, A: (m.linalg.svd(A)[0].abs() * G(m, 3, 3).real).sum(), lambda: cplx(3, 4)),
    "svd_Vh_only": (lambda m, A: (m.linalg.svd(A, full_matrices=False)[2].abs() * G(m, 3, 4).real).sum(),
                    lambda: cplx(3, 4)),
    "pinv": (lambda m, A: (m.linalg.pinv(A) * G(m, 3, 4)).real.sum(), lambda: cplx(4, 3)),
    "matrix_exp": (lambda m, A: (m.linalg.matrix_exp(A) * G(m, 3, 3)).real.sum(), lambda: cplx(3, 3)),
}
_G = cplx(4, 4)


def G(m, r, c):
    return m.tensor(_G[:r, :c])


@pytest.mark.parametrize("name", sorted(TORCH_GRADS))
def test_gradients_match_torch(name):
    loss, make = TORCH_GRADS[name]
    A = make()
    x, tx = t(A, grad=True), torch.tensor(A, requires_grad=True)
    loss(loom, x).backward()
    loss(torch, tx).backward()
    assert x.grad.dtype.name == "complex128"
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.resolve_conj().numpy(), rtol=1e-8, atol=1e-10)


def test_complex64_gradients():
    A = hpd(3, 3, dtype="complex64")
    x, tx = t(A, grad=True), torch.tensor(A, requires_grad=True)
    for lf in (lambda m, a: m.linalg.eigvalsh(a).sum(), lambda m, a: m.linalg.det(a).real,
               lambda m, a: (m.linalg.cholesky(a) * G(m, 3, 3).to(a.dtype)).real.sum()):
        x.grad, tx.grad = None, None
        lf(loom, x).backward()
        lf(torch, tx).backward()
        assert x.grad.dtype == loom.complex64
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.resolve_conj().numpy(), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("fn", ["eigh", "svd"])
def test_phase_dependent_losses_are_refused_as_torch(fn):
    A = hpd(3, 3) if fn == "eigh" else cplx(3, 3)
    with pytest.raises(RuntimeError) as te:
        getattr(torch.linalg, fn)(torch.tensor(A, requires_grad=True))[1 if fn == "eigh" else 0].real.sum().backward()
    with pytest.raises(RuntimeError) as le:
        getattr(LA, fn)(t(A, grad=True))[1 if fn == "eigh" else 0].real.sum().backward()
    assert "specified up to multiplication by e^{i phi}" in str(te.value)
    assert "specified up to multiplication by e^{i phi}" in str(le.value)


def test_eig_backward_still_matches_torch_on_complex_solves():
    # eig's backward solves V^H X = Y with the complex LAPACK solve now
    A = cplx(2, 4, 4)
    x, tx = t(A, grad=True), torch.tensor(A, requires_grad=True)
    f = lambda m, a: (lambda w, v: (w.abs() ** 2).sum() + (v.abs() * G(m, 4, 4).real).sum())(*m.linalg.eig(a))
    f(loom, x).backward()
    f(torch, tx).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.resolve_conj().numpy(), rtol=1e-8, atol=1e-10)
