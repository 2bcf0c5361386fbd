"""loom.special, as torch.special (scipy.special's names): re-exports of loom's ops."""
from ._ops import (erf, erfc, erfinv, special_erfcx as erfcx, special_ndtr as ndtr, special_ndtri as ndtri,  # noqa: F401
                   special_log_ndtr as log_ndtr, lgamma as gammaln, digamma, polygamma, mvlgamma as multigammaln,
                   igamma as gammainc, igammac as gammaincc, i0, special_i0e as i0e, special_i1 as i1,
                   special_i1e as i1e, special_bessel_j0 as bessel_j0, special_bessel_j1 as bessel_j1,
                   special_zeta as zeta, xlogy, special_xlog1py as xlog1py, special_entr as entr, sinc, round,
                   log1p, expm1, exp2, logsumexp, softmax, log_softmax, sigmoid as expit, logit)

psi = digamma

__all__ = ["erf", "erfc", "erfcx", "erfinv", "ndtr", "ndtri", "log_ndtr", "gammaln", "digamma", "psi", "polygamma",
           "multigammaln", "gammainc", "gammaincc", "i0", "i0e", "i1", "i1e", "bessel_j0", "bessel_j1", "zeta",
           "xlogy", "xlog1py", "entr", "sinc", "round", "log1p", "expm1", "exp2", "logsumexp", "softmax",
           "log_softmax", "expit", "logit"]
