"""loom.distributions: probability distributions with torch.distributions' API (sample, rsample, log_prob,
entropy, mean, variance, expand, kl_divergence). Gamma, Beta and Dirichlet sample without a reparameterised
gradient; StudentT's rsample carries gradients to loc and scale, not df."""
from .bernoulli import Bernoulli
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Beta, Dirichlet, Gamma
from .geometric import Geometric
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .student_t import StudentT
from .uniform import Uniform
from . import kl_extended as _kl_extended  # registers the kl_divergence pairs of the families above

del _kl_extended

__all__ = ["Distribution", "Normal", "Categorical", "Bernoulli", "Uniform", "Gamma", "Beta", "Dirichlet",
           "MultivariateNormal", "Exponential", "Laplace", "LogNormal", "Poisson", "Geometric", "Binomial",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Cauchy", "StudentT", "Independent",
           "kl_divergence", "register_kl"]
