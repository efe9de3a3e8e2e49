"""webtorch.distributions: torch.distributions' core -- parameterizable probability distributions with
sampling (``sample``; reparameterized ``rsample`` where the family allows it), ``log_prob``, ``entropy``,
``cdf``/``icdf``, moments, constraints, and ``kl_divergence``.

Families: Bernoulli, Categorical, OneHotCategorical(StraightThrough), Normal, MultivariateNormal, Uniform,
Exponential, Laplace, Cauchy, Gamma, Chi2, Beta, Dirichlet, StudentT, Independent.
"""
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Chi2, Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .studentt import StudentT
from .uniform import Uniform
from . import kl, utils  # noqa: F401

__all__ = ["Bernoulli", "Beta", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution", "Exponential", "ExponentialFamily",
           "Gamma", "Independent", "Laplace", "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "StudentT", "Uniform", "kl_divergence", "register_kl"]
