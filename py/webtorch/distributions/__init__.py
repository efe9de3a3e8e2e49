"""webtorch.distributions: torch.distributions' core -- parameterizable probability distributions with
sampling (``sample``; reparameterized ``rsample`` where the family allows it), ``log_prob``, ``entropy``,
``cdf``/``icdf``, moments, constraints, and ``kl_divergence``.

Families: Bernoulli, Categorical, OneHotCategorical(StraightThrough), Normal, MultivariateNormal, Uniform,
Exponential, Laplace, Cauchy, Gamma, Chi2, Beta, Dirichlet, StudentT, Independent.

Each family's module (and constraints, kl, utils) loads on first use (``webtorch._lazy``).
"""
from .._lazy import lazy_names

__all__ = ["Bernoulli", "Beta", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution", "Exponential", "ExponentialFamily",
           "Gamma", "Independent", "Laplace", "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "StudentT", "Uniform", "kl_divergence", "register_kl"]
__getattr__, __dir__ = lazy_names(__name__, globals(), {
    "Bernoulli": ".bernoulli:Bernoulli", "Beta": ".beta:Beta", "Categorical": ".categorical:Categorical",
    "Cauchy": ".cauchy:Cauchy", "Chi2": ".gamma:Chi2", "Dirichlet": ".dirichlet:Dirichlet",
    "Distribution": ".distribution:Distribution", "Exponential": ".exponential:Exponential",
    "ExponentialFamily": ".exp_family:ExponentialFamily", "Gamma": ".gamma:Gamma",
    "Independent": ".independent:Independent", "Laplace": ".laplace:Laplace",
    "MultivariateNormal": ".multivariate_normal:MultivariateNormal", "Normal": ".normal:Normal",
    "OneHotCategorical": ".one_hot_categorical:OneHotCategorical",
    "OneHotCategoricalStraightThrough": ".one_hot_categorical:OneHotCategoricalStraightThrough",
    "StudentT": ".studentt:StudentT", "Uniform": ".uniform:Uniform", "kl_divergence": ".kl:kl_divergence",
    "register_kl": ".kl:register_kl", "constraints": ".constraints", "kl": ".kl", "utils": ".utils"})
