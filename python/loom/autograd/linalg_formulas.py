"""Backward formulas of the LAPACK ops (PyTorch's, torch/csrc/autograd/FunctionsManual.cpp,
real case), written with loom ops so that they differentiate again. Outputs that received no
gradient arrive as None."""
from .. import _ops as lm



def _T(x):
    return x.transpose(-2, -1)


def _eye(n, like):
    return lm.eye(n, dtype=like.dtype, device=like.device)


def _diag_embed(v):
    return v.unsqueeze(-1) * _eye(v.shape[-1], v)


def _solve(A, B):
    return lm._linalg_solve_ex(A, B)[0]


def _inv(A):
    return lm._linalg_inv_ex(A)[0]


def solve_backward(grad, A, result):
    """X = A^-1 B: gB = A^-T g, gA = -gB X^T."""
    gB = _solve(_T(A), grad)
    return -(gB @ _T(result)), gB


def inv_backward(grad, inverse):
    return -(_T(inverse) @ grad @ _T(inverse))


def det_backward(grad, A, result):
    """d det = det tr(A^-1 dA), so gA = g det A^-T (A invertible)."""
    return (grad * result).unsqueeze(-1).unsqueeze(-1) * _T(_inv(A))


def slogdet_backward(grad, A):
    return grad.unsqueeze(-1).unsqueeze(-1) * _T(_inv(A))


def _tril_half(x):
    """The lower triangle with the diagonal halved (PyTorch's phi)."""
    return x.tril() - 0.5 * _diag_embed(x.diagonal(0, -2, -1))


def cholesky_backward(gL, upper, L):
    """gA = L^-T phi(L^T gL) L^-1, symmetrized (A is symmetric)."""
    if upper:
        L, gL = _T(L), _T(gL)
    n = L.shape[-1]
    Linv = lm._linalg_solve_triangular(L, _eye(n, L).expand(L.shape), False)
    gA = _T(Linv) @ _tril_half(_T(L) @ gL) @ Linv
    return 0.5 * (gA + _T(gA))


def solve_triangular_backward(grad, A, result, upper, left, unitriangular):
    gB = lm._linalg_solve_triangular(_T(A), grad, not upper, left, unitriangular)
    gA = -(gB @ _T(result)) if left else -(_T(result) @ gB)
    gA = gA.triu(1 if unitriangular else 0) if upper else gA.tril(-1 if unitriangular else 0)
    return gA, gB


def _qr_backward_tall(gQ, gR, Q, R):
    """m >= n, reduced: gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q."""
    M = R @ _T(gR) - _T(gQ) @ Q
    low = M.tril(-1)
    sym = low + _T(low) + _diag_embed(M.diagonal(0, -2, -1))
    b = gQ + Q @ sym
    # b R^-T = (R^-1 b^T)^T
    return _T(lm._linalg_solve_triangular(R, _T(b), True))


def qr_backward(gQ, gR, Q, R, complete, compute_q):
    if not compute_q:
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if complete and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    gQ = lm.zeros_like(Q) if gQ is None else gQ
    gR = lm.zeros_like(R) if gR is None else gR
    if m >= n:
        return _qr_backward_tall(gQ, gR, Q, R)
    # wide: A = Q [R1 R2], X = A[:, :m] has QR (Q, R1) and Y = A[:, m:] = Q R2
    R1, R2 = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
    gR1, gR2 = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
    Y = Q @ R2
    gX = _qr_backward_tall(gQ + Y @ _T(gR2), gR1, Q, R1)
    return lm.cat([gX, Q @ gR2], -1)


def eigh_backward(gL, gV, L, V, compute_v):
    """gA = V (diag(gL) + sym((V^T gV) / E)) V^T, E_ij = L_j - L_i off the diagonal."""
    if not compute_v:
        raise RuntimeError("linalg.eigh: the derivative of the eigenvalues needs the eigenvectors: "
                           "call linalg.eigh, or eigvalsh on a tensor that requires grad")
    if gV is None:
        return V @ (gL.unsqueeze(-1) * _T(V))
    n = L.shape[-1]
    eye = _eye(n, L)
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye
    inner = (_T(V) @ gV) / E * (1 - eye)
    inner = 0.5 * (inner + _T(inner))   # A is symmetric: PyTorch's gradient is too
    if gL is not None:
        inner = inner + _diag_embed(gL)
    return V @ inner @ _T(V)


def svd_backward(gU, gS, gVh, U, S, Vh, full_matrices, compute_uv):
    if not compute_uv:
        raise RuntimeError("linalg.svd: the derivative of the singular values needs U and Vh: call linalg.svd, "
                           "or svdvals on a tensor that requires grad")
    m, n = U.shape[-2], Vh.shape[-1]
    k = S.shape[-1]
    if full_matrices and m != n:   # only the first k columns of U and rows of Vh are determined
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU = None if gU is None else gU.narrow(-1, 0, k)
        gVh = None if gVh is None else gVh.narrow(-2, 0, k)
    if gU is None and gVh is None:
        gS = lm.zeros_like(S) if gS is None else gS
        return U @ (gS.unsqueeze(-1) * Vh)
    eye = _eye(k, S)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
    skew = lambda X: X - _T(X)
    gA = None
    if gU is not None:
        gA = skew(_T(U) @ gU) / E * S.unsqueeze(-2)
    if gVh is not None:
        t = S.unsqueeze(-1) * skew(Vh @ _T(gVh)) / E
        gA = t if gA is None else gA + t
    if gS is not None:
        gA = gA + _diag_embed(gS)
    if m > n and gU is not None:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = (gA + gUSinv - U @ (_T(U) @ gUSinv)) @ Vh
    elif m < n and gVh is not None:
        gA = gA @ Vh
        gVhSinv = gVh / S.unsqueeze(-1)
        gA = U @ (gA + gVhSinv - (gVhSinv @ _T(Vh)) @ Vh)
    else:
        gA = U @ gA @ Vh
    return gA


def _mH(x):
    return x.transpose(-2, -1).conj()


def _reye(n, like):
    """A real identity for complex `like` too (loom.eye fills complex dtypes with zeros)."""
    return lm.eye(n, dtype=like.real.dtype if like.dtype.is_complex else like.dtype, device=like.device)


def _cdiagonal(x):
    """The diagonal of a (possibly complex) batch of square matrices: diagonal() takes no complex."""
    return (x * _reye(x.shape[-1], x)).sum([-1])


def _csolve(A, B):
    """X with A X = B for complex A or B, through the real system [[Re A, -Im A], [Im A, Re A]]
    (loom's LAPACK solve is real-only); differentiable like every op it is made of."""
    if not A.dtype.is_complex and not B.dtype.is_complex:
        return _solve(A, B)
    Ar, Ai = (A.real, A.imag) if A.dtype.is_complex else (A, lm.zeros_like(A))
    Br, Bi = (B.real, B.imag) if B.dtype.is_complex else (B, lm.zeros_like(B))
    M = lm.cat([lm.cat([Ar, -Ai], -1), lm.cat([Ai, Ar], -1)], -2)
    X = _solve(M, lm.cat([Br, Bi], -2))   # A and B have the same batch dims here
    n = A.shape[-1]
    return lm.complex(X.narrow(-2, 0, n), X.narrow(-2, n, n))


def eig_backward(gL, gV, L, V, compute_v, a_dtype):
    """PyTorch's linalg_eig_backward (non-Hermitian case):
    gA = V^-H (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(E)) V^H, E_ij = L_j - L_i,
    whose real part is the gradient of real A (handle_r_to_c). The loss must not depend on the
    eigenvectors' phases: as PyTorch, it is refused when Im(diag(V^H gV)) is not ~0."""
    if not compute_v:
        raise RuntimeError("linalg.eig: the derivative of the eigenvalues needs the eigenvectors: "
                           "call linalg.eig, or eigvals on a tensor that requires grad")
    if gL is None and gV is None:
        return None
    VH = _mH(V)
    if gV is None:
        gA = _csolve(VH, gL.unsqueeze(-1) * VH)
    else:
        VhgV = VH @ gV
        d = _cdiagonal(VhgV)
        if not bool((d.imag.detach().abs() <= 1e-2).all()):   # PyTorch's allclose(Im, 0, 1e-2, 1e-2)
            raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                               "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
                               "so it is ill-defined.")
        VhgV = VhgV - VH @ (V * d.real.unsqueeze(-2))
        n = L.shape[-1]
        eye = _reye(n, L)
        Lc = L.conj()
        Econj = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye
        ret = VhgV / Econj
        if gL is not None:
            ret = ret * (1 - eye) + gL.unsqueeze(-1) * eye
        gA = _csolve(VH, ret @ VH)
    return gA if a_dtype.is_complex else gA.real
