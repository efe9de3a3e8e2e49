"""What the distribution suites (tests/distributions/) check for each distribution of a list built in both
libraries from the same arguments, given as (ours, torch's) pairs: shapes of samples, log_prob and entropy,
expand, and repr."""
import webtorch


def check_shapes(pairs, sample_shape, device, numbers_only):
    """batch/event/sample shapes, dtypes and flags as torch's; samples on ``device`` except for the distributions
    at the indices in ``numbers_only`` (built from Python numbers: their tensors are on the default device, cpu)."""
    for i, (w, t) in enumerate(pairs):
        assert tuple(w.batch_shape) == tuple(t.batch_shape), t
        assert tuple(w.event_shape) == tuple(t.event_shape), t
        ws, ts = w.sample(sample_shape), t.sample(sample_shape)
        assert tuple(ws.shape) == tuple(ts.shape) and str(ws.dtype) == str(ts.dtype), t
        assert ws.device.type == ("cpu" if i in numbers_only else webtorch.device(device).type)
        assert w.has_rsample == t.has_rsample and w.has_enumerate_support == t.has_enumerate_support, t
        if t.has_rsample:
            assert tuple(w.rsample(sample_shape).shape) == tuple(t.rsample(sample_shape).shape), t
        assert tuple(w.log_prob(ws).shape) == tuple(t.log_prob(ts).shape), t
        assert tuple(w.entropy().shape) == tuple(t.entropy().shape), t


def check_expand(pairs):
    """expand((4,) + batch_shape) as torch's: type, shapes, samples, repr and validation flag; returns the expanded
    pairs."""
    expanded = []
    for w, t in pairs:
        shape = (4,) + tuple(t.batch_shape)
        we, te = w.expand(shape), t.expand(shape)
        assert type(we) is type(w) and tuple(we.batch_shape) == tuple(te.batch_shape) == shape
        assert tuple(we.event_shape) == tuple(te.event_shape)
        assert tuple(we.sample((2,)).shape) == tuple(te.sample((2,)).shape)
        assert repr(we) == repr(te)
        assert we._validate_args == w._validate_args
        expanded.append((we, te))
    return expanded


def check_repr(pairs, compare_constraints=lambda w: True):
    """repr of each distribution as torch's, and of its support and arg_constraints where
    ``compare_constraints(ours)`` (a constraint holding tensors names their device in its repr)."""
    for w, t in pairs:
        assert repr(w) == repr(t)
        if compare_constraints(w):
            assert repr(w.support) == repr(t.support)
            assert {k: repr(v) for k, v in w.arg_constraints.items()} == \
                {k: repr(v) for k, v in t.arg_constraints.items()}
