"""webtorch.optim: PyTorch's optimizers and learning-rate schedulers, on any webtorch device.

Each optimizer's module, lr_scheduler and swa_utils load on first use (``webtorch._lazy``)."""
from .._lazy import lazy_names
from .optimizer import Optimizer  # noqa: F401

__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "lr_scheduler", "Muon",
           "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam",
           "swa_utils", "swap_in_optimizer_params_and_state"]
__getattr__, __dir__ = lazy_names(__name__, globals(), {
    "Adadelta": ".adadelta:Adadelta", "Adafactor": ".adafactor:Adafactor", "Adagrad": ".adagrad:Adagrad",
    "Adam": ".adam:Adam", "Adamax": ".adamax:Adamax",
    "AdamW": ".adamw:AdamW", "ASGD": ".asgd:ASGD", "LBFGS": ".lbfgs:LBFGS", "Muon": ".muon:Muon", "NAdam": ".nadam:NAdam",
    "RAdam": ".radam:RAdam", "RMSprop": ".rmsprop:RMSprop", "Rprop": ".rprop:Rprop", "SGD": ".sgd:SGD",
    "SparseAdam": ".sparse_adam:SparseAdam",
    "lr_scheduler": ".lr_scheduler", "swa_utils": ".swa_utils",
    "swap_in_optimizer_params_and_state": ".stateless:swap_in_optimizer_params_and_state"})
