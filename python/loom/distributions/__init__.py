"""loom.distributions: probability distributions with torch.distributions' API (sample, rsample, log_prob,
entropy, mean, variance, kl_divergence)."""
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .kl import kl_divergence, register_kl
from .normal import Normal
from .uniform import Uniform

__all__ = ["Distribution", "Normal", "Categorical", "Bernoulli", "Uniform", "kl_divergence", "register_kl"]
