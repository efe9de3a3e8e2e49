"""Settings applied across a DataPipe graph: turning its Shufflers on or off and seeding them (what DataLoader does
with an IterDataPipe at construction and at each epoch)."""
import warnings

from ..._dtype import int64
from ...ops.creation import empty
from .datapipes.datapipe import IterDataPipe, MapDataPipe

__all__ = ["apply_random_seed", "apply_shuffle_settings", "get_all_graph_pipes"]


def get_all_graph_pipes(datapipe):
    """Every DataPipe reachable from ``datapipe`` through its attributes (itself first), each once."""
    seen, order, todo = set(), [], [datapipe]
    while todo:
        dp = todo.pop()
        if id(dp) in seen:
            continue
        seen.add(id(dp))
        order.append(dp)
        for value in vars(dp).values():
            for child in (value if isinstance(value, (list, tuple)) else (value,)):
                if isinstance(child, (IterDataPipe, MapDataPipe)):
                    todo.append(child)
    return order


def _shufflers(datapipe):
    return [dp for dp in get_all_graph_pipes(datapipe)
            if callable(getattr(type(dp), "set_shuffle", None)) and callable(getattr(type(dp), "set_seed", None))]


def apply_shuffle_settings(datapipe, shuffle=None):
    """Turn every Shuffler of the graph on (``shuffle=True``; one is appended when there is none) or off."""
    if shuffle is None:
        return datapipe
    shufflers = _shufflers(datapipe)
    if not shufflers and shuffle:
        warnings.warn("`shuffle=True` was set, but the datapipe does not contain a `Shuffler`. Adding one at the end. "
                      "Be aware that the default buffer size might not be sufficient for your task.")
        datapipe = datapipe.shuffle()
        shufflers = [datapipe]
    for s in shufflers:
        s.set_shuffle(shuffle)
    return datapipe


def apply_random_seed(datapipe, rng):
    """Seed every Shuffler of the graph with a number drawn from the generator ``rng``."""
    for s in _shufflers(datapipe):
        s.set_seed(int(empty((), dtype=int64).random_(generator=rng).item()))
    return datapipe
