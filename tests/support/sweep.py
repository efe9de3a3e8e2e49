"""The generated bad-input sweep (issue 21 §2): every public op and module of webtorch that PyTorch 2.13 also has,
called with each class of bad input, on PyTorch and on webtorch, compared with bad_calls.compare (outcome, exception
type, shape, dtype, values).

The catalogue is webtorch's own op tables (FUNCTIONS/METHODS of webtorch.ops.*), nn.functional and the nn.Module
classes, intersected with torch's names. No signature is written by hand: each op's good calls are found by trying
argument templates on PyTorch (a float matrix, two of them, a dim, a class target, an integer matrix, ...) and
keeping those PyTorch accepts; a module's by trying constructor arguments and input ranks. Every good call then gets
each input class substituted into each tensor argument in turn: every integer dtype and bool, float into an op that
only takes integers, a zero-size dim in each position, a 0-dim tensor, NaN/±inf values, out-of-range dims,
wrong-dtype class targets, a tensor on another device. A call whose good form draws random numbers (two runs of
PyTorch differ), or that returns uninitialized memory (empty*, resize_), compares shapes and dtypes only ("~" prefix,
as bad_calls).

Cases are code strings in bad_calls' format (``m``, ``F``, ``d`` in scope), so a known difference is named by its
code. ``python tests/support/sweep.py`` prints the per-device counts and every disagreement.
"""
import hashlib
import importlib
import warnings

from bad_calls import outcome

X = "((m.arange(6., device=d).reshape(2, 3) + 1) / 8)"   # floats in (0, 1): valid for log, probabilities, ...
I = "m.arange(6, device=d).reshape(2, 3)"
T = "m.tensor([0, 2], device=d)"                         # class targets for a (2, 3) input
_FLOAT_ARGS = {
    "int": [f"{I}.to(m.{t})" for t in ("uint8", "int8", "int16", "int32", "int64")] + [f"({I} > 2)"],
    "zero-size": ["m.ones(0, 3, device=d)", "m.ones(2, 0, device=d)"],
    "0-dim": ["m.tensor(0.5, device=d)"],
    "nan/inf": ["m.tensor([[float('nan'), 0.5, 1.0], [float('inf'), -float('inf'), 0.25]], device=d)"],
    "device": ["((m.arange(6.).reshape(2, 3) + 1) / 8)"],
}
_TARGET_ARGS = {"target dtype": [f"{T}.to(m.{t})" for t in ("int32", "int16", "uint8", "float32")] + [f"({T} > 0)"],
                "target range": ["m.tensor([0, 3], device=d)", "m.tensor([-1, 0], device=d)"]}
_INT_ARGS = {"float into int op": [X, "m.tensor([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]], device=d)"],
             "zero-size": ["m.ones(0, 3, dtype=m.int64, device=d)"], "0-dim": ["m.tensor(2, device=d)"]}
# argument templates tried on PyTorch to find an op's good calls; {a} {b} {c} are tensor slots of the kind named
_TEMPLATES = (("f({a})", "X"), ("f({a}, 1)", "X"), ("f({a}, {b})", "XX"), ("f({a}, {b}, {c})", "XXX"),
              ("f({a}, {b})", "XT"), ("f({a}, 0.5)", "X"), ("f({a})", "I"), ("f({a}, {b})", "II"),
              ("f({a}, 1)", "I"), ("f({a}, 2)", "X"))
_SLOTS = {"X": X, "I": I, "T": T}
_DIMS = ("2", "-3")
# module constructors and input ranks tried on PyTorch (3 channels/features)
_CTORS = ("", "3", "1", "3, 4", "3, 3, 2", "2", "(2, 2)", "3, 3")
_MOD_INPUTS = ("m.linspace(-1, 1, 6, device=d).reshape(2, 3)", "m.linspace(-1, 1, 24, device=d).reshape(2, 3, 4)",
               "m.linspace(-1, 1, 96, device=d).reshape(2, 3, 4, 4)",
               "m.linspace(-1, 1, 384, device=d).reshape(2, 3, 4, 4, 4)")
_MOD_ARGS = {"int": ["{x}.to(m.int64)", "{x}.to(m.int32)", "({x} > 0)"], "zero-size": None, "0-dim": ["m.tensor(0.5, device=d)"],
             "nan/inf": ["{x}.masked_fill({x}.abs() > 0.7, float('nan')).masked_fill({x}.abs() < 0.3, float('inf'))"],
             "device": ["{x}.cpu()"]}
# callables that are not ops on tensors (or that cost seconds each): not part of the sweep
_SKIP = {"set_default_dtype", "set_default_device", "set_printoptions", "manual_seed", "seed", "load", "save",
         "compile", "jit", "vmap", "from_numpy", "frombuffer", "set_grad_enabled", "use_deterministic_algorithms",
         "set_rng_state", "get_rng_state", "initial_seed", "is_tensor", "is_storage", "numel", "typename",
         "empty_cache", "set_num_threads", "get_num_threads", "cdist"}


def catalogue():
    """[(kind, name)]: 'fn' webtorch.<name>, 'method' Tensor.<name>, 'F' nn.functional.<name>, 'module' nn.<name>;
    each also a PyTorch 2.13 name."""
    import torch
    import webtorch
    from webtorch import ops
    out = []
    for mod_name in ops.MODULES:
        mod = importlib.import_module(f"webtorch.ops.{mod_name}")
        out += [("fn", k) for k in getattr(mod, "FUNCTIONS", {}) if hasattr(torch, k)]
        out += [("method", k) for k in getattr(mod, "METHODS", {}) if hasattr(torch.Tensor, k) and k.endswith("_")]
    F = webtorch.nn.functional
    out += [("F", k) for k in dir(F) if not k.startswith("_") and callable(getattr(F, k))
            and callable(getattr(torch.nn.functional, k, None)) and isinstance(getattr(F, k), type(catalogue))]
    out += [("module", k) for k in dir(webtorch.nn) if isinstance(getattr(webtorch.nn, k), type)
            and issubclass(getattr(webtorch.nn, k), webtorch.nn.Module) and isinstance(getattr(torch.nn, k, None), type)
            and not k.startswith(("Lazy", "Module", "Sequential", "Parameter", "Container"))]
    return sorted({x for x in out if x[1] not in _SKIP and not x[1].startswith("_")})


def _callee(kind, name):
    return {"fn": f"m.{name}", "F": f"F.{name}"}.get(kind)


def _torch_ok(code):
    return outcome(_torch(), code, "cpu")[0] == "return"


def _torch():
    import torch
    return torch


def _random(code):
    """True when two runs of PyTorch give different values (the call draws random numbers)."""
    import torch
    torch.manual_seed(0)
    a = outcome(torch, code, "cpu")
    torch.manual_seed(1)
    b = outcome(torch, code, "cpu")
    from bad_calls import compare
    return compare(a, b)[0] != "ok"


def _op_cases(kind, name):
    if kind == "method":   # an in-place method: its first slot is the tensor written to
        good = [(f"{{a}}.clone().{name}(" + t[len("f({a}"):].lstrip(", "), s) for t, s in _TEMPLATES]
    else:
        good = [(t.replace("f(", _callee(kind, name) + "(", 1), s) for t, s in _TEMPLATES]
    found = []
    for tmpl, slots in good:
        code = tmpl.format(**{k: _SLOTS[s] for k, s in zip("abc", slots)})
        if len(found) < 2 and _torch_ok(code):
            found.append((tmpl, slots, code))
    for tmpl, slots, code in found:
        yield "good", code
        for pos, slot in enumerate(slots):
            classes = {"X": _FLOAT_ARGS, "T": _TARGET_ARGS, "I": _INT_ARGS}[slot]
            for cls, args in classes.items():
                for bad in args:
                    fill = {k: _SLOTS[s] for k, s in zip("abc", slots)}
                    fill["abc"[pos]] = bad
                    yield cls, tmpl.format(**fill)
        if ", 1)" in tmpl:
            for dim in _DIMS:
                yield "dim", tmpl.replace(", 1)", f", {dim})").format(**{k: _SLOTS[s] for k, s in zip("abc", slots)})
            yield "dim", tmpl.format(**{k: "m.tensor(0.5, device=d)" for k in "abc"})


def _module_cases(name):
    found = []
    for ctor in _CTORS:
        for x in _MOD_INPUTS:
            build = (f"mod = m.nn.{name}({ctor}).to(d)\nwith m.no_grad():\n    for p in mod.parameters(): "
                     f"p.copy_(m.linspace(-0.5, 0.5, p.numel(), device=d).reshape(p.shape))\n")
            code = build + f"x = {x}\nr = mod(x)"
            if len(found) < 1 and _torch_ok(code):
                found.append((build, x, code))
    for build, x, code in found:
        yield "good", code
        rank = x.count(",") - 1
        zero = [f"m.ones({', '.join('0' if i == j else str(s) for j, s in enumerate((2, 3, 4, 4, 4)[:rank]))}, device=d)"
                for i in range(rank)]
        for cls, args in _MOD_ARGS.items():
            for a in (args or zero):
                yield cls, build + f"x = {x}\nr = mod({a.format(x='x')})"


def cases():
    """{catalogue entry 'kind:name': [(input class, case code), ...]}, found on PyTorch; random calls carry
    bad_calls' "~"."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind, name in catalogue():
            labelled = dict((c, cls) for cls, c in (_module_cases(name) if kind == "module" else _op_cases(kind, name)))
            if labelled:
                rnd = name.startswith("empty") or name == "resize_" or _random(next(iter(labelled)))
                out[f"{kind}:{name}"] = [(cls, ("~" if rnd else "") + c) for c, cls in labelled.items()]
    return out


# entries whose "device" cases PyTorch runs with tensors on two devices: a copy between devices; ops that only read
# sizes or treat each tensor on its own (no kernel sees two devices); einsum, whose second argument there is a
# sublist of subscripts (read as numbers), not an operand
_CROSS_DEVICE = {"method:copy_", "fn:broadcast_tensors", "fn:atleast_1d", "fn:atleast_2d", "fn:atleast_3d",
                 "F:assert_int_or_pair", "fn:einsum"}


def _holds_tensors(code):
    """True when the module a module case builds has parameters or buffers (on the device after .to(d))."""
    scope = {"m": _torch(), "d": "cpu"}
    exec(code.lstrip("~").split("\nx = ")[0], scope)
    mod = scope["mod"]
    return any(True for _ in mod.parameters()) or any(True for _ in mod.buffers())


def expected(torch_out, entry, cls, code, device):
    """The outcome PyTorch 2.13 gives a case on ``device``. The oracle runs on its CPU, where a "device" case's
    cpu tensor is just one more cpu tensor; on an accelerator, a call that brings that (not 0-dim) cpu tensor
    together with a tensor on the device raises PyTorch's same-device RuntimeError (cuda_equal's and
    searchsorted's own device checks included), unless the entry is one of _CROSS_DEVICE."""
    if cls != "device" or device == "cpu" or torch_out[0] == "raise" or entry in _CROSS_DEVICE:
        return torch_out
    mixes = _holds_tensors(code) if entry.startswith("module:") else "device=d" in code
    return ("raise", RuntimeError) if mixes else torch_out


def shard(key, n):
    """The shard (0..n-1) a catalogue entry runs in: stable across runs and machines."""
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % n


def disagreements(devices):
    """{(device, entry, input class): kind} for every class with a disagreement, kind the worst one met: 'value'
    (both return, results differ), then 'torch raises' / 'torch returns' (the other does not), then 'type'; and
    per-device verdict counts."""
    import collections
    import torch
    import webtorch
    from bad_calls import compare
    rank = ("value", "torch raises", "torch returns", "type")
    cs = cases()
    torch_out = {c: outcome(torch, c, "cpu") for codes in cs.values() for _, c in codes}
    out, counts = {}, {}
    for dev in devices:
        counts[dev] = collections.Counter()
        for entry, labelled in cs.items():
            for cls, c in labelled:
                verdict, _ = compare(expected(torch_out[c], entry, cls, c, dev), outcome(webtorch, c, dev))
                counts[dev][verdict] += 1
                if verdict == "ok":
                    continue
                kind = f"torch {torch_out[c][0]}s" if verdict == "outcome" else verdict
                key = (dev, entry, cls)
                out[key] = min(out.get(key, kind), kind, key=rank.index)
    return out, counts


# why each kind of disagreement is left (the reasons of tests/support/sweep_known.py), by (input class, kind)
REASONS = {
    "int": {"torch raises": "an integer or bool input into a float op: PyTorch's CPU kernel refuses that dtype "
                            "(NotImplementedError/RuntimeError, per op and per dtype), webtorch computes it",
            "torch returns": "an integer or bool input: PyTorch's CPU kernel computes it, webtorch refuses the dtype",
            "type": "an integer or bool input: both refuse, with another exception type",
            "value": "an integer or bool input: both compute, the result dtype or values differ (integer arithmetic "
                     "vs float)"},
    "float into int op": {"*": "a float input into an op PyTorch runs on integers: outcome, type or result differs"},
    "zero-size": {"torch raises": "a zero-size input: PyTorch refuses the empty dim, webtorch returns an empty result",
                  "torch returns": "a zero-size input: PyTorch returns an empty (or NaN) result, webtorch refuses it",
                  "type": "a zero-size input: both refuse, with another exception type",
                  "value": "a zero-size input: both return, the results differ"},
    "0-dim": {"torch raises": "a 0-dim input: PyTorch refuses it (dim out of range, rank check), webtorch returns",
              "torch returns": "a 0-dim input: PyTorch treats it as one element, webtorch refuses it",
              "type": "a 0-dim input: both refuse, with another exception type (IndexError vs RuntimeError/ValueError)",
              "value": "a 0-dim input: both return, the results differ"},
    "nan/inf": {"torch raises": "NaN/inf values: PyTorch's value check raises, webtorch returns",
                "torch returns": "NaN/inf values: PyTorch returns, webtorch raises",
                "value": "NaN/inf values: both return, NaN/inf propagate differently (a formula that turns inf "
                         "into NaN or drops a NaN)",
                "type": "NaN/inf values: both refuse, with another exception type"},
    "dim": {"torch raises": "an out-of-range dim (or a dim on a 0-dim input): PyTorch raises, webtorch returns",
            "torch returns": "a dim PyTorch accepts (wraps, or an int argument that is not a dim), webtorch refuses",
            "type": "an out-of-range dim: both refuse, with another exception type",
            "value": "an int argument the sweep takes for a dim means something else to the op: results differ"},
    "device": {"*": "a cpu tensor in a device case: the call runs on the cpu alone (the cpu tensor is its only "
                    "operand, or einsum's operand beside a sublist) and webtorch's cpu result differs from "
                    "PyTorch's (as in the op's other cpu classes)"},
    "target dtype": {"*": "a class target of another dtype: PyTorch's dtype rule differs from webtorch's"},
    "target range": {"*": "a class target out of range: PyTorch's check differs from webtorch's"},
    "good": {"*": "the good call itself differs (a default or an argument order of the op differs from PyTorch's)"},
}


def reason(cls, kind):
    r = REASONS[cls]
    return r.get(kind) or r["*"]


if __name__ == "__main__":
    # python tests/support/sweep.py [device ...]: the counts, then tests/support/sweep_known.py's KNOWN entries
    import sys
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from devices import DEVICES
    found, counts = disagreements(sys.argv[1:] or DEVICES)
    for dev, c in counts.items():
        print(f"# {dev}: {sum(c.values())} calls, {dict(c)}")
    by_reason = {}
    for (dev, entry, cls), kind in sorted(found.items()):
        by_reason.setdefault(reason(cls, kind), []).append((dev, entry, cls))
    for text, items in by_reason.items():
        print(f"    {text!r}: [")
        for item in items:
            print(f"        {item!r},")
        print("    ],")
