"""The polynomial coefficients of native/kernels/vmath_*.h's special functions, computed again.

    python tools/vmath_fit.py                  # every fit: its C initializer and its error
    python tools/vmath_fit.py erfcx_g erf_small    # just these

Each fit is a Chebyshev interpolant (in mpmath, 60 digits) of a function on an interval of the variable
the C code computes, written as a polynomial in (v - center), highest power first, as the headers'
Horner loops take it, each coefficient rounded to double. The reported error is the largest
|p(v) - f(v)| / |f(v)| (or absolute, where the fit says so) over 2000 points, p with the rounded
coefficients in exact arithmetic: the fit's own share of the function's error, evaluation and
argument rounding come on top (tests/test_vmath_special.py measures the whole).
"""
import argparse
import struct
import sys

import mpmath as mp

mp.mp.dps = 60


def _erfcx(x):
    return mp.exp(x * x) * mp.erfc(x)


def _erfinv_over_x(w):
    """erfinv(x) / x at w = -log(1 - x^2), solved in log space where x rounds to 1"""
    if w == 0:
        return mp.sqrt(mp.pi) / 2
    x = mp.sqrt(-mp.expm1(-w))
    if w < 3:
        return mp.erfinv(x) / x
    lc = -w - mp.log1p(x)   # log(1 - x) = log(1 - x^2) - log(1 + x)
    y = mp.findroot(lambda y: mp.log(mp.erfc(y)) - lc, mp.sqrt(w))
    return y / x


ERF_SMALL = mp.mpf("0.6")   # erf below, erfc = e^(-a^2) erfcx(a) above


def _erfinv_over_s(s):
    """erfinv(x) / x at sqrt(w) = s"""
    return _erfinv_over_x(s * s)


K_ERFCX = mp.mpf("1.5")   # erfcx's variable r = 1 / (a + K), a >= 0: its pole at -K keeps G smooth


def _erfcx_g(r):
    """(a + K) erfcx(a) at a = 1 / r - K: 1/sqrt(pi) at r = 0"""
    if r == 0:
        return 1 / mp.sqrt(mp.pi)
    return _erfcx(1 / r - K_ERFCX) / r


K_ERFCF = 3   # float32 erfc's K: the fit of G on a <= 10.1 converges faster than with 1.5


def _erfcf_g(r):
    """(a + 3) erfcx(a) at a = 1 / r - 3"""
    return _erfcx(1 / r - K_ERFCF) / r


def _erfcx_dlog(r):
    """-(a + K) d/da log erfcx(a) at a = 1 / r - K (1 at r = 0): how erfcx moves with the low part of ndtr's
    argument"""
    if r == 0:
        return mp.mpf(1)
    return -mp.diff(lambda t: mp.log(_erfcx(t)), 1 / r - K_ERFCX) / r


def _erf_small(z):
    """erf(x) / x at z = x^2"""
    if z == 0:
        return 2 / mp.sqrt(mp.pi)
    x = mp.sqrt(z)
    return mp.erf(x) / x


def _i_small(nu):
    """I_nu(x) / (x/2)^nu at z = x^2 / 4: the power series sum z^k / (k! (k + nu)!)"""
    return lambda z: mp.besseli(nu, 2 * mp.sqrt(z)) / mp.sqrt(z) ** nu if z > 0 else mp.mpf(1)


def _i_small_dlog(nu):
    """(z + z0) d/dz log _i_small(nu), z0 = (j_nu,1 / 2)^2 its nearest pole (a zero of the series on the
    negative axis, where I_nu(2 sqrt z) is a J_nu): how the series moves with the rounding error of z"""
    f = _i_small(nu)
    z0 = I_DLOG_POLE[nu]
    return lambda z: (z + z0) * (mp.diff(lambda t: mp.log(f(t)), z) if z > 0 else mp.mpf(1) / (nu + 1))


def _i_large(nu):
    """e^-x I_nu(x) sqrt(x) at v = 1/x: 1/sqrt(2 pi) at v = 0"""
    return lambda v: mp.besseli(nu, 1 / v) * mp.exp(-1 / v) / mp.sqrt(v) if v > 0 else 1 / mp.sqrt(2 * mp.pi)


BESSEL_J_SPLIT = 5   # J0, J1: their first zeros factored out below |x| = 5, Hankel's asymptotic form above
J_ZEROS = {0: [mp.besseljzero(0, 1) ** 2, mp.besseljzero(0, 2) ** 2], 1: [mp.besseljzero(1, 1) ** 2]}


def _j_small(nu):
    """J_nu(x) / (x^nu prod (z - j^2)) at z = x^2, the product over J_ZEROS[nu]"""
    def f(z):
        x = mp.sqrt(z)
        den = mp.fprod(z - r for r in J_ZEROS[nu])
        return (mp.besselj(nu, x) / x ** nu if z > 0 else mp.mpf(1) / 2 ** nu) / den
    return f


def _j_hankel(nu, part):
    """Hankel's P_nu (part 0) and 8x Q_nu (part 1) at w = 1/x^2: J_nu = sqrt(2/(pi x)) (P cos chi - Q sin chi),
    chi = x - (2 nu + 1) pi/4; 1 and 4 nu^2 - 1 at w = 0"""
    def f(w):
        if w == 0:
            return mp.mpf(1) if part == 0 else mp.mpf(4 * nu * nu - 1)
        x = 1 / mp.sqrt(w)
        chi = x - (2 * nu + 1) * mp.pi / 4
        j, y, k = mp.besselj(nu, x), mp.bessely(nu, x), mp.sqrt(mp.pi * x / 2)
        return k * (j * mp.cos(chi) + y * mp.sin(chi)) if part == 0 else 8 * x * k * (y * mp.cos(chi) - j * mp.sin(chi))
    return f


def _sinpi(z):
    """sin(pi f) / (pi f) at z = f^2: 1 at 0"""
    return mp.sin(mp.pi * mp.sqrt(z)) / (mp.pi * mp.sqrt(z)) if z > 0 else mp.mpf(1)


def _cospi(z):
    """cos(pi f) / pi at z = f^2"""
    return mp.cos(mp.pi * mp.sqrt(z)) / mp.pi


BESSEL_I_SPLIT = 10   # power series below |x| = 10, the asymptotic form above
I_DLOG_POLE = [float((mp.besseljzero(nu, 1) / 2) ** 2) for nu in (0, 1)]   # printed: the C code divides by z + it


# name: (function of v, lo, hi, center, degree, relative error?); the fits in WEIGHTED are least-squares fits
# of the relative error; the fits in TWO_PART also print the
# rounding errors of their first coefficients (LM_NAME_LO0, LO1: constant, linear), which the C code adds
# to a small term
FITS = {
    "erf_small": (_erf_small, 0, ERF_SMALL ** 2, 0, 9, True),
    "erfcx_dlog": (_erfcx_dlog, 0, 1 / K_ERFCX, 0, 4, False),
    "erfcx_g": (_erfcx_g, 0, 1 / K_ERFCX, mp.mpf("0.34375"), 31, True),
    "erf_g": (_erfcx_g, 1 / (6 + K_ERFCX), 1 / (ERF_SMALL + K_ERFCX), mp.mpf("0.3125"), 14, True),
    "erfinv_central": (_erfinv_over_x, 0, 5, mp.mpf(2.5), 22, True),
    "erfinv_tail1": (_erfinv_over_s, mp.sqrt(5), 4, mp.mpf("3.125"), 22, True),
    "erfinv_tail2": (_erfinv_over_s, 4, mp.mpf("6.05"), mp.mpf("5.0"), 22, True),
    "erfinv_tail3": (_erfinv_over_s, 6, mp.mpf("11.5"), mp.mpf("8.75"), 22, True),
    "erfinv_tail4": (_erfinv_over_s, mp.mpf("11.5"), mp.mpf("27.3"), mp.mpf("19.5"), 22, True),
    "j0_small": (_j_small(0), 0, mp.mpf(BESSEL_J_SPLIT) ** 2, mp.mpf("12.5"), 11, True),
    "j1_small": (_j_small(1), 0, mp.mpf(BESSEL_J_SPLIT) ** 2, mp.mpf("12.5"), 12, True),
    "j0_p": (_j_hankel(0, 0), 0, 1 / mp.mpf(BESSEL_J_SPLIT) ** 2, mp.mpf("0.02"), 19, True),
    "j0_q": (_j_hankel(0, 1), 0, 1 / mp.mpf(BESSEL_J_SPLIT) ** 2, mp.mpf("0.02"), 23, True),
    "j1_p": (_j_hankel(1, 0), 0, 1 / mp.mpf(BESSEL_J_SPLIT) ** 2, mp.mpf("0.02"), 19, True),
    "j1_q": (_j_hankel(1, 1), 0, 1 / mp.mpf(BESSEL_J_SPLIT) ** 2, mp.mpf("0.02"), 23, True),
    "sinpi": (_sinpi, 0, mp.mpf(1) / 16, 0, 8, True),
    "cospi": (_cospi, 0, mp.mpf(1) / 16, 0, 8, True),
    "i0_small": (_i_small(0), 0, mp.mpf(BESSEL_I_SPLIT) ** 2 / 4, 0, 18, True),
    "i1_small": (_i_small(1), 0, mp.mpf(BESSEL_I_SPLIT) ** 2 / 4, 0, 18, True),
    "i0_dlog": (_i_small_dlog(0), 0, mp.mpf(BESSEL_I_SPLIT) ** 2 / 4, 0, 3, True),
    "i1_dlog": (_i_small_dlog(1), 0, mp.mpf(BESSEL_I_SPLIT) ** 2 / 4, 0, 3, True),
    "i0_large": (_i_large(0), 0, 1 / mp.mpf(BESSEL_I_SPLIT), mp.mpf("0.05"), 20, True),
    "i1_large": (_i_large(1), 0, 1 / mp.mpf(BESSEL_I_SPLIT), mp.mpf("0.05"), 20, True),
    "rgamma": (lambda f: 1 / mp.gamma(1 + f), 0, 1, mp.mpf("0.5"), 14, False),
    "erfcf_g": (_erfcf_g, 1 / (mp.mpf("10.1") + K_ERFCF), mp.mpf(1) / K_ERFCF, mp.mpf("0.21"), 10, True),
    "erfinvf_central": (_erfinv_over_x, 0, 5, mp.mpf(2.5), 10, True),
    "erfinvf_tail": (_erfinv_over_s, mp.sqrt(5), 4, mp.mpf("3.125"), 9, True),
}


WEIGHTED = {"i0_small": True, "i1_small": True, "i0_dlog": True, "i1_dlog": True,
            "erf_g": lambda r: r * mp.exp(-(1 / r - K_ERFCX) ** 2)}   # erf's erfcx: absolute in erfc
TWO_PART = {"erf_small": 1, "erfcx_g": 2, "erfinv_central": 2, "erfinv_tail1": 2, "erfinv_tail2": 2,
            "erfinv_tail3": 2, "erfinv_tail4": 2, "i0_small": 2, "i1_small": 2, "i0_large": 2, "i1_large": 2,
            "j0_small": 2, "j1_small": 2, "j0_p": 2, "j0_q": 2, "j1_p": 2, "j1_q": 2,
            "sinpi": 2, "cospi": 2, "erf_g": 2, "erfinvf_central": 1}   # how many of the first coefficients come in two parts
FLOAT32 = {"erfinvf_central", "erfinvf_tail"}   # coefficients rounded to float, for float arithmetic


def chebyshev_fit(f, lo, hi, center, degree):
    """coefficients of (v - center)^k, k = 0 .. degree, of f's interpolant at the Chebyshev nodes"""
    lo, hi, center = mp.mpf(lo), mp.mpf(hi), mp.mpf(center)
    n = degree + 1
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    vals = [f(mid + half * u) for u in nodes]
    cheb = [2 * mp.fsum(vals[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / n) for k in range(n)) / n
            for j in range(n)]
    cheb[0] /= 2
    # sum c_j T_j(u) as powers of u, then of v - center: u = (v - center) / half + (center - mid) / half
    mono = [mp.mpf(0)] * n
    prev, cur = [mp.mpf(0)] * n, [mp.mpf(1)] + [mp.mpf(0)] * (n - 1)   # T_-1 (unused), T_0
    for j, c in enumerate(cheb):
        if j == 1:
            prev, cur = cur, [mp.mpf(0), mp.mpf(1)] + [mp.mpf(0)] * (n - 2)
        elif j >= 2:   # T_j = 2 u T_j-1 - T_j-2
            prev, cur = cur, [2 * (cur[i - 1] if i else 0) - prev[i] for i in range(n)]
        for i in range(n):
            mono[i] += c * cur[i]
    shift = (center - mid) / half
    out = [mp.mpf(0)] * n   # p(u) with u = s + shift, s = (v - center) / half: expand binomially
    for i, a in enumerate(mono):
        for k in range(i + 1):
            out[k] += a * mp.binomial(i, k) * shift ** (i - k)
    return [c / half ** k for k, c in enumerate(out)]


def _to_float32(c):
    return struct.unpack("f", struct.pack("f", float(c)))[0]


def rounded_fit(f, lo, hi, center, degree, two_part, weighted=False, single=False):
    """chebyshev_fit's (weighted_fit's; weighted may be the weight) coefficients rounded to double (single: to
    float), the first two_part of them in two parts (hi + lo)"""
    rnd = _to_float32 if single else float
    if weighted:
        exact = weighted_fit(f, lo, hi, center, degree, None if weighted is True else weighted)
    else:
        exact = chebyshev_fit(f, lo, hi, center, degree)
    out = [mp.mpf(rnd(c)) for c in exact]
    for k in range(two_part):
        out[k] += mp.mpf(rnd(exact[k] - out[k]))
    return out


def weighted_fit(f, lo, hi, center, degree, weight=None):
    """coefficients of (v - center)^k of the least-squares fit of (p - f) weight at 4 (degree + 1) Chebyshev
    nodes, weight 1/f by default (relative accuracy, where f spans orders of magnitude: interpolation's error
    is even in absolute terms)"""
    lo, hi, center = mp.mpf(lo), mp.mpf(hi), mp.mpf(center)
    n = 4 * (degree + 1)
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    vs = [mid + half * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    a = mp.matrix(n, degree + 1)
    b = mp.matrix(n, 1)
    for i, v in enumerate(vs):
        fv = f(v)
        wv = weight(v) if weight else 1 / fv
        for k in range(degree + 1):
            a[i, k] = (v - center) ** k * wv
        b[i] = fv * wv
    sol, _ = mp.qr_solve(a, b)
    return [sol[k] for k in range(degree + 1)]


def rounded_error(f, lo, hi, center, coeffs, relative, weight=None):
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    worst = mp.mpf(0)
    for i in range(2001):
        v = lo + (hi - lo) * i / 2000
        p = mp.mpf(0)
        for c in reversed(coeffs):
            p = p * (v - center) + c
        ref = f(v)
        e = abs(p - ref) * weight(v) if weight else abs(p - ref) / (abs(ref) if relative else 1)
        worst = max(worst, e)
    return worst


def _c_float(c):
    h = float(c).hex()   # a float's hex digits end in zeros past its 24 bits
    mant, exp = h.split("p")
    return mant.rstrip("0").rstrip(".") + "p" + exp + "f"


def c_initializer(coeffs, single=False):
    lits = [(_c_float(_to_float32(c)) if single else float(c).hex()) for c in reversed(coeffs)]   # a two-part constant: its first part
    lines, line = [], "   "
    for lit in lits:
        if len(line) + len(lit) + 2 > 110:
            lines.append(line)
            line = "   "
        line += " " + lit + ","
    lines.append(line)
    return "{\n" + "\n".join(lines) + "\n}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"fits to print (default all: {', '.join(FITS)})")
    args = ap.parse_args()
    unknown = set(args.names) - set(FITS)
    if unknown:
        sys.exit(f"no such fit: {', '.join(sorted(unknown))}")
    for name in args.names or FITS:
        f, lo, hi, center, degree, relative = FITS[name]
        weight = WEIGHTED.get(name, False)
        single = name in FLOAT32
        coeffs = rounded_fit(f, lo, hi, center, degree, TWO_PART.get(name, 0), weight, single)
        err = rounded_error(f, lo, hi, center, coeffs, relative, None if weight is True else (weight or None))
        kind = "weighted" if callable(WEIGHTED.get(name)) else ("relative" if relative else "absolute")
        print(f"/* {name}: degree {degree} in v - {float(center)!r} on [{float(lo)!r}, {float(hi)!r}], "
              f"{kind} error {float(err):.2e} (2^{float(mp.log(err, 2)):.1f}) */")
        print(f"static const {'float' if single else 'double'} lm_{name}[{degree + 1}] = {c_initializer(coeffs, single)};")
        if name in ("j0_small", "j1_small"):
            for k, r in enumerate(J_ZEROS[int(name[1])]):
                print(f"#define LM_{name[:2].upper()}_ZERO{k + 1} {float(r).hex()}, {float(r - mp.mpf(float(r))).hex()}")
        if name.endswith("_dlog") and name[0] == "i":
            print(f"#define LM_{name.upper()}_POLE {I_DLOG_POLE[int(name[1])].hex()}")
        for k in range(TWO_PART.get(name, 0)):
            rnd = _to_float32 if single else float
            lo_part = coeffs[k] - mp.mpf(rnd(coeffs[k]))
            print(f"#define LM_{name.upper()}_LO{k} {_c_float(_to_float32(lo_part)) if single else float(lo_part).hex()}")


if __name__ == "__main__":
    main()
