"""loom.distributions: probability distributions with torch.distributions' API (sample, rsample, log_prob,
entropy, mean, variance, kl_divergence). Gamma, Beta and Dirichlet sample without a reparameterised gradient."""
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .gamma import Beta, Dirichlet, Gamma
from .kl import kl_divergence, register_kl
from .normal import Normal
from .uniform import Uniform

__all__ = ["Distribution", "Normal", "Categorical", "Bernoulli", "Uniform", "Gamma", "Beta", "Dirichlet",
           "kl_divergence", "register_kl"]
