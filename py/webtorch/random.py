"""torch.random: the default CPU generator's seeding functions (also at the package root), and fork_rng."""
import contextlib

from .ops import creation
from .ops.creation import manual_seed, seed, initial_seed, get_rng_state, set_rng_state  # noqa: F401


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Leave the default generators of "cpu" and of ``device_type`` (when webtorch has it: "webgpu"; a CUDA-less
    PyTorch forks only the CPU's for "cuda") in the states they had on entry.

    Example:
        >>> with torch.random.fork_rng():
        ...     _ = torch.rand(3)  # the draws after the block are those it would have had without it
    """
    if not enabled:
        yield
        return
    generators = [creation.default_generator(t) for t in dict.fromkeys(("cpu", device_type)) if t in ("cpu", "webgpu")]
    states = [g.get_state() for g in generators]
    try:
        yield
    finally:
        for g, state in zip(generators, states):
            g.set_state(state)
