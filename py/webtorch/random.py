"""torch.random: the default CPU generator's seeding functions (also at the package root)."""
from .ops.creation import manual_seed, seed, initial_seed, get_rng_state, set_rng_state  # noqa: F401
