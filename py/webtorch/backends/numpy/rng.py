"""NumPy implementations of the random primitives of backends/contract.py: a stream is a NumPy Generator over PCG64, its
state the bit generator's state as JSON bytes."""
import numpy as np

from .arrays import as_ndarray, npdtype


def rng_new(seed):
    return np.random.Generator(np.random.PCG64(seed))


def rng_get_state(rng):
    import json
    return json.dumps(rng.bit_generator.state).encode()


def rng_set_state(rng, state):
    import json
    rng.bit_generator.state = json.loads(bytes(state).decode())


def uniform(shape, low, high, dtype, rng):
    nd = npdtype(dtype)
    if nd in (np.float32, np.float64):
        r = rng.random(shape, dtype=nd)
    else:
        r = rng.random(shape, dtype=np.float32)
    if low != 0 or high != 1:
        r = r * (high - low) + low
    return as_ndarray(r).astype(nd, copy=False)


def normal(shape, mean, std, dtype, rng):
    nd = npdtype(dtype)
    r = rng.standard_normal(shape, dtype=nd if nd in (np.float32, np.float64) else np.float32)
    if std != 1 or mean != 0:
        r = r * std + mean
    return as_ndarray(r).astype(nd, copy=False)


def randint(shape, low, high, dtype, rng):
    return as_ndarray(rng.integers(low, high, size=shape, dtype=np.int64)).astype(npdtype(dtype), copy=False)


def randperm(n, dtype, rng):
    return rng.permutation(n).astype(npdtype(dtype))


def bernoulli(p, shape, dtype, rng):
    """p: a handle (broadcast to shape) or a float; result of dtype with 1 where u < p."""
    u = rng.random(shape, dtype=np.float64 if (type(p) is np.ndarray and p.dtype == np.float64) else np.float32)
    return as_ndarray(u < p).astype(npdtype(dtype))
