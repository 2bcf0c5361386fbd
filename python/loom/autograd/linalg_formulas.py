"""Backward formulas of the LAPACK ops (PyTorch's, torch/csrc/autograd/FunctionsManual.cpp), written
with loom ops so that they differentiate again. One formula serves real and complex matrices: the
transposes are conjugate transposes (a plain transpose for real ones), and complex gradients follow
PyTorch's convention (dL/dRe + i dL/dIm). Outputs that received no gradient arrive as None."""
from .. import _ops as lm



def _T(x):
    return x.transpose(-2, -1)


def _H(x):
    """The conjugate transpose (the transpose of a real matrix)."""
    return x.transpose(-2, -1).conj() if x.dtype.is_complex else x.transpose(-2, -1)


def _conj(x):
    return x.conj() if x.dtype.is_complex else x


def _eye(n, like):
    return lm.eye(n, dtype=like.dtype, device=like.device)


def _reye(n, like):
    """A real identity, also for complex `like` (a real mask multiplies either)."""
    return lm.eye(n, dtype=like.real.dtype if like.dtype.is_complex else like.dtype, device=like.device)


def _diagonal(x):
    """The diagonal of a batch of square matrices (diagonal() takes no complex dtype)."""
    if not x.dtype.is_complex:
        return x.diagonal(0, -2, -1)
    return (x * _reye(x.shape[-1], x)).sum([-1])


def _diag_embed(v):
    return v.unsqueeze(-1) * _reye(v.shape[-1], v)


def _solve(A, B):
    return lm._linalg_solve_ex(A, B)[0]


def _inv(A):
    return lm._linalg_inv_ex(A)[0]


def _phase_check(im, api, what="eigenvectors"):
    """PyTorch's gauge check: a loss of complex eigen/singular vectors must not depend on their
    phases, which show as imaginary parts `im` of diag(V^H gV) (allclose(im, 0, 1e-2, 1e-2))."""
    if not bool((im.detach().abs() <= 1e-2).all()):
        if what == "eigenvectors":
            raise RuntimeError(f"{api}: The eigenvectors in the complex case are specified up to multiplication by "
                               "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.")
        raise RuntimeError(f"{api}: The singular vectors in the complex case are specified up to multiplication by "
                           "e^{i phi}. The specified loss function depends on this phase term, making it ill-defined.")


def solve_backward(grad, A, result):
    """X = A^-1 B: gB = A^-H g, gA = -gB X^H."""
    gB = _solve(_H(A), grad)
    return -(gB @ _H(result)), gB


def inv_backward(grad, inverse):
    return -(_H(inverse) @ grad @ _H(inverse))


def det_backward(grad, A, result):
    """d det = det tr(A^-1 dA), so gA = g conj(det) A^-H (A invertible)."""
    return (grad * _conj(result)).unsqueeze(-1).unsqueeze(-1) * _H(_inv(A))


def slogdet_backward(g_logabs, g_sign, A, sign):
    """d log|det| = Re t and d sign = i sign Im t, t = tr(A^-1 dA): gA = c A^-H with
    c = g_logabs - i Im(conj(g_sign) sign) (the sign of real A is locally constant)."""
    if A.dtype.is_complex and g_sign is not None:
        c = (_conj(g_sign) * sign).imag * (-1j)
        c = c if g_logabs is None else c + g_logabs
    elif g_logabs is None:
        return None
    else:
        c = g_logabs
    return c.unsqueeze(-1).unsqueeze(-1) * _H(_inv(A))


def cholesky_backward(gL, upper, L):
    """gA = L^-H phi L^-1, phi = (tril(M) + tril(M, -1)^H) / 2, M = L^H gL: symmetric for real A; for
    complex A Hermitian but for the imaginary part of M's diagonal, as PyTorch's."""
    if upper:
        L, gL = _H(L), _H(gL)
    n = L.shape[-1]
    Linv = lm._linalg_solve_triangular(L, _eye(n, L).expand(L.shape), False)
    M = _H(L) @ gL
    phi = 0.5 * (M.tril() + _H(M.tril(-1)))
    return _H(Linv) @ phi @ Linv


def solve_triangular_backward(grad, A, result, upper, left, unitriangular):
    gB = lm._linalg_solve_triangular(_H(A), grad, not upper, left, unitriangular)
    gA = -(gB @ _H(result)) if left else -(_H(result) @ gB)
    gA = gA.triu(1 if unitriangular else 0) if upper else gA.tril(-1 if unitriangular else 0)
    return gA, gB


def _qr_backward_tall(gQ, gR, Q, R):
    """m >= n, reduced: gA = (gQ + Q copyltu(M)) R^-H with M = R gR^H - gQ^H Q and
    copyltu(M) = tril(M, -1) + tril(M, -1)^H + Re(diag M) (R's diagonal is real)."""
    M = R @ _H(gR) - _H(gQ) @ Q
    low = M.tril(-1)
    d = _diagonal(M)
    sym = low + _H(low) + _diag_embed(d.real if d.dtype.is_complex else d)
    b = gQ + Q @ sym
    # b R^-H = (R^-1 b^H)^H
    return _H(lm._linalg_solve_triangular(R, _H(b), True))


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
    gX = _qr_backward_tall(gQ + Y @ _H(gR2), gR1, Q, R1)
    return lm.cat([gX, Q @ gR2], -1)


def eigh_backward(gL, gV, L, V, compute_v):
    """gA = V (diag(gL) + skewH(V^H gV) / (2E)) V^H, E_ij = L_j - L_i off the diagonal, skewH(X) = X - X^H
    (the Hermitian gradient PyTorch gives). Complex eigenvectors are fixed up to a phase each: a loss
    that depends on it is refused, as PyTorch."""
    if not compute_v:
        raise RuntimeError("linalg.eigh: the derivative of the eigenvalues needs the eigenvectors: "
                           "call linalg.eigh, or eigvalsh on a tensor that requires grad")
    if gV is None:
        return V @ (gL.unsqueeze(-1) * _H(V))
    n = L.shape[-1]
    eye = _reye(n, L)
    VhgV = _H(V) @ gV
    if VhgV.dtype.is_complex:
        _phase_check(_diagonal(VhgV).imag, "linalg_eigh_backward")
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye
    inner = VhgV / E * (1 - eye)
    inner = 0.5 * (inner + _H(inner))
    if gL is not None:
        inner = inner + _diag_embed(gL)
    return V @ inner @ _H(V)


def svd_backward(gU, gS, gVh, U, S, Vh, full_matrices, compute_uv):
    """PyTorch's svd_backward. For complex A the singular vectors are fixed up to a common phase per
    pair (u_i, v_i): the loss must not depend on it (Im diag(U^H gU) + Im diag(V^H gV) ~ 0, refused
    otherwise), and Im diag(U^H gU) / S enters the diagonal."""
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
    cplx = U.dtype.is_complex
    eye = _reye(k, S)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
    skew = lambda X: X - _H(X)
    UhgU = None if gU is None else _H(U) @ gU
    VhgV = None if gVh is None else Vh @ _H(gVh)   # V^H gV, gV = gVh^H
    gA = None
    if UhgU is not None:
        gA = skew(UhgU) / E * S.unsqueeze(-2)
    if VhgV is not None:
        t = S.unsqueeze(-1) * skew(VhgV) / E
        gA = t if gA is None else gA + t
    if cplx:
        im = lm.zeros_like(S)
        if UhgU is not None:
            im = im + _diagonal(UhgU).imag
        if VhgV is not None:
            im = im + _diagonal(VhgV).imag
        _phase_check(im, "svd_backward", "singular vectors")
        # the diagonal of the skew parts is a phase term: replaced by i Im(diag U^H gU) / S (the phase
        # of the pair (u_i, v_i) moved onto u_i; with only gV given, -i Im(diag V^H gV) / S)
        phase = _diagonal(UhgU).imag if UhgU is not None else -_diagonal(VhgV).imag
        gA = gA * (1 - eye) + _diag_embed(lm.complex(lm.zeros_like(phase), phase / S))
    if gS is not None:
        gA = gA + _diag_embed(gS)
    if m > n and gU is not None:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = (gA + gUSinv - U @ (_H(U) @ gUSinv)) @ Vh
    elif m < n and gVh is not None:
        gA = gA @ Vh
        gVhSinv = gVh / S.unsqueeze(-1)
        gA = U @ (gA + gVhSinv - (gVhSinv @ _H(Vh)) @ Vh)
    else:
        gA = U @ gA @ Vh
    return gA


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
    VH = _H(V)
    if gV is None:
        gA = _solve(VH, gL.unsqueeze(-1) * VH)
    else:
        VhgV = VH @ gV
        d = _diagonal(VhgV)
        _phase_check(d.imag, "linalg_eig_backward")
        VhgV = VhgV - VH @ (V * d.real.unsqueeze(-2))
        n = L.shape[-1]
        eye = _reye(n, L)
        Lc = L.conj()
        Econj = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye
        ret = VhgV / Econj
        if gL is not None:
            ret = ret * (1 - eye) + gL.unsqueeze(-1) * eye
        gA = _solve(VH, ret @ VH)
    return gA if a_dtype.is_complex else gA.real
