"""webtorch.distributions: torch.distributions' core -- parameterizable probability distributions with
sampling (``sample``; reparameterized ``rsample`` where the family allows it), ``log_prob``, ``entropy``,
``cdf``/``icdf``, moments, constraints, and ``kl_divergence``.

Families: Bernoulli, Categorical, OneHotCategorical(StraightThrough), Normal, MultivariateNormal, Uniform,
Exponential, Laplace, Independent. (Beta, Gamma, Dirichlet and the others that need lgamma/digamma or a gamma
sampler are not here yet: webtorch has neither.)
"""
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .uniform import Uniform
from . import kl, utils  # noqa: F401

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "ExponentialFamily", "Independent",
           "Laplace", "MultivariateNormal", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
           "Uniform", "kl_divergence", "register_kl"]
