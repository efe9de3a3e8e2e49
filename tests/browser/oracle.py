"""Recorded PyTorch oracle: the op suites' ``check()`` calls, replayed inside Pyodide (no NumPy, no torch there).

Recording (CPython, host): ``PYTHONPATH=tests/browser pytest -p oracle --oracle-out=cases.json tests/ops/test_x.py -k webgpu``
wraps ``optest.check``/``check_error``: each call first runs as usual (webtorch on native WebGPU vs torch),
and when it passes, the case is stored as plain JSON: the lambda's source text (found through the AST of its
file) with the values of the free variables it reads, the input arrays, torch's outputs, the weights the
gradient check backpropagates and torch's input gradients (``check_error``: torch's exception type).
A call whose lambda reads something JSON cannot carry (a helper function, torch itself) is counted as
``unreplayable`` rather than silently dropped.

Layers (``layercheck.check_layer``) are recorded the same way: the constructor lambda, torch's state_dict,
and per step torch's outputs, buffers, input and parameter gradients; the replay builds the layer in webtorch,
loads torch's weights, and compares the state_dict layout, outputs, buffers and every gradient. Optimizers:
``optimizer_cases()`` records torch's 10-step trajectories (losses, parameters, state_dict keys and step) of
a small regression for each optimizer, replayed from the same initial values.

Replaying (Pyodide, pure Python): ``replay(case, device)`` rebuilds the lambda with ``eval``, makes the
inputs as webtorch tensors on ``device`` and compares like optest: structure, shapes, dtypes, values within
the case's tolerances, every input gradient; raises AssertionError naming the difference.
"""
import ast
import json
import math

_PLAIN = (type(None), bool, int, float, str)
_SAFE_MODULES = {"math", "operator", "functools", "itertools", "builtins"}


class Unreplayable(Exception):
    """The check() call cannot be carried to the browser as JSON (the reason says why)."""


# ---- JSON encoding of plain values (tuples, slices, Ellipsis, non-finite floats kept) ---------------------

def encode(v):
    if isinstance(v, float) and not math.isfinite(v):
        return {"__float__": repr(v)}
    if isinstance(v, _PLAIN):
        return v
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, tuple):
        return {"__tuple__": [encode(x) for x in v]}
    if isinstance(v, slice):
        return {"__slice__": [encode(v.start), encode(v.stop), encode(v.step)]}
    if v is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"__dict__": {k: encode(x) for k, x in v.items()}}
    if type(v).__module__ == "numpy" and hasattr(v, "dtype"):
        if type(v).__name__ != "ndarray":  # a NumPy scalar
            return encode(v.item())
        return {"__nd__": str(v.dtype), "shape": list(v.shape), "data": [encode(x) for x in v.ravel().tolist()]}
    raise Unreplayable(f"a value of type {type(v).__module__}.{type(v).__name__}")


def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if not isinstance(v, dict):
        return v
    if "__float__" in v:
        return float(v["__float__"])
    if "__tuple__" in v:
        return tuple(decode(x) for x in v["__tuple__"])
    if "__slice__" in v:
        return slice(*(decode(x) for x in v["__slice__"]))
    if "__ellipsis__" in v:
        return Ellipsis
    if "__dict__" in v:
        return {k: decode(x) for k, x in v["__dict__"].items()}
    if "__nd__" in v:
        return Array(v["__nd__"], tuple(v["shape"]), [decode(x) for x in v["data"]])
    raise ValueError(f"unknown encoded value {v!r}")


class Array:
    """A recorded NumPy array (the browser has no NumPy): dtype name, shape, flat values."""
    __slots__ = ("dtype", "shape", "flat")

    def __init__(self, dtype, shape, flat):
        self.dtype, self.shape, self.flat = dtype, shape, flat


# ---- recording side (CPython) --------------------------------------------------------------------------

_trees = {}


def _file_tree(path):
    t = _trees.get(path)
    if t is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        t = _trees[path] = (text, ast.parse(text))
    return t


def _params(args):
    """Every parameter name of an ast.arguments (positional, *args, keyword-only, **kwargs)."""
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return names + [a.arg for a in (args.vararg, args.kwarg) if a is not None]


def _lambda_node(fn):
    code = fn.__code__
    text, tree = _file_tree(code.co_filename)
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4)
                                   + bool(code.co_flags & 8)])
    cands = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
             and _params(n.args) == params]
    if len(cands) > 1:  # several lambdas with the same parameters on one line: the one holding its instructions
        cols = [p[2] for p in code.co_positions() if p[0] == code.co_firstlineno and p[2] is not None]
        first = min(cols) if cols else -1
        inside = [n for n in cands if n.body.col_offset <= first]
        cands = [max(inside, key=lambda n: n.body.col_offset)] if inside else cands
    if len(cands) != 1:
        raise Unreplayable(f"could not find the lambda's source at {code.co_filename}:{code.co_firstlineno}")
    return ast.get_source_segment(text, cands[0])


def _read_names(code):
    """Names a code object (and the code nested in it) may read from closures or globals."""
    names = set(code.co_freevars) | set(code.co_names)
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            names |= _read_names(c)
    return names


def capture(fn):
    """``fn`` (a lambda or a function of a test) as JSON: its source, the plain values and modules it reads,
    and the sources of the test-module functions it calls (recursively)."""
    import inspect
    import textwrap
    out = {"source": None, "env": {}, "modules": [], "functions": []}
    seen = set()

    def visit(f, top):
        if f.__name__ == "<lambda>":
            src = _lambda_node(f)
        else:
            try:
                src = textwrap.dedent(inspect.getsource(f))
            except (OSError, TypeError):
                raise Unreplayable(f"no source for the function {f.__name__}") from None
            if src.lstrip().startswith("@"):
                raise Unreplayable(f"the function {f.__name__} is decorated")
        if top:
            out["source"] = src
        else:
            out["functions"].append(src)
        cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
        for name in sorted(_read_names(f.__code__)):
            if name in seen or name.startswith("@"):  # "@py_builtins" etc.: pytest's assertion rewriting
                continue
            if name in cells:
                try:
                    value = cells[name].cell_contents
                except ValueError:
                    raise Unreplayable(f"the closure variable {name!r} is unbound") from None
            elif name in f.__globals__:
                value = f.__globals__[name]
            else:
                continue  # a builtin or an attribute name
            seen.add(name)
            if type(value).__name__ == "module":
                if value.__name__ not in _SAFE_MODULES:
                    raise Unreplayable(f"it reads the module {value.__name__}")
                out["modules"].append([name, value.__name__])
            elif type(value).__name__ == "function" and value.__module__ == f.__module__:
                if name in cells:  # a local function: its source defines it under its own name
                    if value.__name__ != name:
                        raise Unreplayable(f"the local function {name!r} is an alias")
                visit(value, False)
            else:
                try:
                    out["env"][name] = encode(value)
                except Unreplayable as e:
                    raise Unreplayable(f"it reads {name!r}, {e}") from None

    visit(fn, True)
    return out


def _t_value(t):
    """torch output -> encoded {shape, dtype, data} (or a plain value)."""
    import torch
    if isinstance(t, torch.Tensor):
        t = t.detach()
        return {"tensor": str(t.dtype), "shape": list(t.shape), "data": encode(t.reshape(-1).tolist())}
    return {"value": encode(t)}


def _fallbacks(device):
    """{primitive: host fallbacks so far} of the webgpu device (empty for cpu)."""
    if device == "cpu":
        return {}
    import webtorch
    return dict(webtorch.webgpu.stats()["host_fallback_ops"])


class Recorder:
    def __init__(self, optest):
        self.optest = optest
        self.cases = []
        self.unreplayable = {}
        self.nodeid = None
        self._count = 0

    def _skip(self, why):
        self.unreplayable[why] = self.unreplayable.get(why, 0) + 1

    def _start(self, fn, args):
        import webtorch
        # the default device the lambda ran under (a suite may set it to the device under test): the replay sets it
        return {"id": f"{self.nodeid}#{self._next()}", **capture(fn), "args": [encode(a) for a in args],
                "default_device": str(webtorch.get_default_device())}

    def _next(self):
        self._count += 1
        return self._count

    def check(self, orig, fn, *args, device="cpu", **kw):
        before = _fallbacks(device)
        out = orig(fn, *args, device=device, **kw)
        if device == "cpu":
            return out
        try:
            case = self._start(fn, args)
            case.update(kind="check", options=encode(kw), **self._torch_side(fn, args, kw.get("grad", True)))
        except Unreplayable as e:
            self._skip(str(e))
            return out
        self._append(case, before, device)
        return out

    def _append(self, case, before, device):
        """Store the case, naming the primitives it ran as NumPy host fallbacks (Pyodide has no NumPy)."""
        after = _fallbacks(device)
        case["needs_numpy"] = sorted(k for k, v in after.items() if v > before.get(k, 0))
        self.cases.append(case)

    def check_error(self, orig, fn, *args, device="cpu", match=None):
        before = _fallbacks(device)
        exc = orig(fn, *args, device=device, match=match)
        if device == "cpu":
            return exc
        try:
            case = self._start(fn, args)
        except Unreplayable as e:
            self._skip(str(e))
            return exc
        torch_exc = None
        import torch
        try:
            fn(torch, *self.optest._inputs(torch, args, None, False))
        except Exception as e:  # noqa: BLE001 -- recording the type torch raises
            torch_exc = type(e).__name__
        case.update(kind="error", torch_error=torch_exc, match=match)
        self._append(case, before, device)
        return exc

    def check_layer(self, orig, make, *args, device="cpu", train=True, atol=1e-5, rtol=1e-4, grad=True, call=None,
                    steps=1):
        before = _fallbacks(device)
        out = orig(make, *args, device=device, train=train, atol=atol, rtol=rtol, grad=grad, call=call, steps=steps)
        if device == "cpu":
            return out
        try:
            case = self._start(make, args)
            case["call"] = capture(call) if call is not None else None
            case.update(kind="layer", options=encode({"train": train, "atol": atol, "rtol": rtol, "grad": grad,
                                                      "steps": steps}),
                        **self._torch_layer(make, args, call, train, grad, steps))
        except Unreplayable as e:
            self._skip(str(e))
            return out
        self._append(case, before, device)
        return out

    def _torch_layer(self, make, args, call, train, grad, steps):
        """torch's side of a layer case: weights, then per step outputs, buffers, gradient weights, gradients."""
        import random
        import torch
        theirs = make(torch)
        state = {k: _t_value(v) for k, v in theirs.state_dict().items()}
        theirs.train(train)
        call = call or (lambda layer, *xs: layer(*xs))
        rng = random.Random(len(self.cases))
        recorded = []
        for _ in range(steps):
            t_in = self.optest._inputs(torch, args, None, grad)
            t_out = self.optest._flatten(call(theirs, *t_in))
            step = {"outputs": [_t_value(t) for t in t_out],
                    "buffers": [_t_value(b) for _, b in theirs.named_buffers()], "weights": [], "input_grads": [],
                    "param_grads": []}
            recorded.append(step)
            if not grad:
                continue
            terms = []
            for t in t_out:
                if isinstance(t, torch.Tensor) and t.requires_grad:
                    w = [rng.uniform(0.5, 1.5) for _ in range(t.numel())]
                    step["weights"].append(w)
                    terms.append((t * torch.tensor(w, dtype=t.dtype).reshape(t.shape)).sum())
                else:
                    step["weights"].append(None)
            if not terms:
                continue
            sum(terms).backward()
            step["input_grads"] = [_t_value(t.grad) if isinstance(t, torch.Tensor) and t.requires_grad else None
                                   for t in t_in]
            step["param_grads"] = [None if p.grad is None else _t_value(p.grad) for _, p in theirs.named_parameters()]
            theirs.zero_grad()
        return {"state": state, "layout": [[k, v["shape"], v["tensor"]] for k, v in state.items()], "steps": recorded}

    def _torch_side(self, fn, args, grad):
        import random
        import torch
        t_in = self.optest._inputs(torch, args, None, grad)
        t_flat = self.optest._flatten(fn(torch, *t_in))
        expected = [_t_value(t) for t in t_flat]
        leaves = self.optest._leaves(t_in)
        weights, grads = [], []
        if grad and leaves:
            rng = random.Random(len(self.cases))
            terms = []
            for t in t_flat:
                if isinstance(t, torch.Tensor) and t.requires_grad and t.dtype.is_floating_point:
                    w = [rng.uniform(0.5, 1.5) for _ in range(t.numel())]
                    weights.append(w)
                    terms.append((t * torch.tensor(w, dtype=t.dtype).reshape(t.shape)).sum())
                else:
                    weights.append(None)
            if terms:
                gs = torch.autograd.grad(sum(terms), leaves, allow_unused=True)
                grads = [None if g is None else _t_value(g) for g in gs]
        return {"expected": expected, "weights": weights, "grads": grads}


# ---- optimizer trajectories (the same code runs torch on the host and webtorch in the browser) -------------

OPTIMIZERS = [("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}), ("SGD", {"lr": 0.05, "weight_decay": 0.01}),
              ("Adam", {"lr": 0.05}), ("Adam", {"lr": 0.05, "foreach": False}),
              ("AdamW", {"lr": 0.05, "amsgrad": True}), ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
              ("Adagrad", {"lr": 0.1}), ("Adadelta", {"lr": 1.0}), ("Adamax", {"lr": 0.05}), ("NAdam", {"lr": 0.05}),
              ("RAdam", {"lr": 0.05})]
OPTIM_STEPS = 10


def _regression_values(seed):
    import random
    r = random.Random(seed)

    def mat(rows, cols):
        return [[r.uniform(-1, 1) for _ in range(cols)] for _ in range(rows)]
    return {"w": mat(3, 4), "b": mat(1, 3)[0], "x": mat(8, 4), "y": mat(8, 3)}


def optimizer_trajectory(m, name, kw, values, device=None, steps=OPTIM_STEPS):
    """``steps`` steps of optimizer ``name`` on a linear least-squares problem in library ``m`` (torch or
    webtorch): losses, final parameters, and the state_dict's layout and step counter."""
    w = m.tensor(values["w"], device=device, requires_grad=True)
    b = m.tensor(values["b"], device=device, requires_grad=True)
    x, y = m.tensor(values["x"], device=device), m.tensor(values["y"], device=device)
    opt = getattr(m.optim, name)([w, b], **kw)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w.t() + b - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    sd = opt.state_dict()
    state = sd["state"].get(0, {})
    step = state.get("step")
    return {"losses": losses, "params": [w.detach().reshape(-1).tolist(), b.detach().tolist()],
            "state_keys": sorted(state), "group_keys": sorted(sd["param_groups"][0]),
            "step": step.item() if hasattr(step, "item") else step}


def optimizer_cases():
    """torch's trajectories of every OPTIMIZERS entry as replayable cases (CPython, needs torch)."""
    import torch
    cases = []
    for i, (name, kw) in enumerate(OPTIMIZERS):
        values = _regression_values(i)
        label = ", ".join(f"{k}={v}" for k, v in kw.items())
        cases.append({"id": f"optim::{name}({label})", "kind": "optim", "name": name, "kw": encode(kw),
                      "values": values, "expected": optimizer_trajectory(torch, name, kw, values), "needs_numpy": []})
    return cases


# ---- pytest plugin (recording) -------------------------------------------------------------------------

def pytest_addoption(parser):
    parser.addoption("--oracle-out", default=None, help="write the recorded check() cases to this JSON file")


def pytest_configure(config):
    out = config.getoption("--oracle-out", None)
    if not out:
        return
    import functools
    import sys
    sys.path.insert(0, str(config.rootpath / "tests" / "support"))
    import optest
    rec = Recorder(optest)
    optest.check = functools.partial(rec.check, optest.check)
    optest.check_error = functools.partial(rec.check_error, optest.check_error)
    import layercheck
    layercheck.check_layer = functools.partial(rec.check_layer, layercheck.check_layer)
    config._webtorch_oracle = (rec, out)


def pytest_runtest_setup(item):
    rec = getattr(item.config, "_webtorch_oracle", None)
    if rec:
        rec[0].nodeid, rec[0]._count = item.nodeid, 0


def pytest_unconfigure(config):
    rec = getattr(config, "_webtorch_oracle", None)
    if rec:
        with open(rec[1], "w") as f:
            json.dump({"cases": rec[0].cases, "unreplayable": rec[0].unreplayable}, f)


# ---- replay side (Pyodide; pure Python) ------------------------------------------------------------------

def _nest(flat, shape):
    if not shape:
        return flat[0]
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _dtype(name):
    import webtorch
    return getattr(webtorch, name.removeprefix("torch.").replace("bool_", "bool"))


def _make(a, device, grad):
    import webtorch
    if isinstance(a, Array):
        dt = _dtype(a.dtype)
        if 0 in a.shape:
            t = webtorch.empty(a.shape, dtype=dt, device=device)
        else:
            t = webtorch.tensor(_nest(a.flat, a.shape), dtype=dt, device=device)
        if grad and a.dtype.startswith("float"):
            t.requires_grad_(True)
        return t
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, Array) for x in a):
        return type(a)(_make(x, device, grad) for x in a)
    return a


def _flatten(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flatten(o)]
    return [out]


def _leaves(ins):
    out = []
    for x in ins:
        if isinstance(x, (list, tuple)):
            out.extend(_leaves(x))
        elif getattr(x, "requires_grad", False):
            out.append(x)
    return out


def _close(a, b, atol, rtol):
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, int) and isinstance(b, int):
        return a == b
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def _compare(ours, ref, atol, rtol, what):
    import webtorch
    assert isinstance(ours, webtorch.Tensor), f"{what}: got {type(ours).__name__}, expected a Tensor"
    assert list(ours.shape) == ref["shape"], f"{what}: shape {tuple(ours.shape)} != torch {tuple(ref['shape'])}"
    assert str(ours.dtype) == ref["tensor"], f"{what}: dtype {ours.dtype} != torch {ref['tensor']}"
    got = _flatten(ours.detach().reshape(-1).tolist())
    want = decode(ref["data"])
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if not _close(g, w, atol, rtol)]
    assert len(got) == len(want) and not bad, (
        f"{what}: {len(bad)} of {len(want)} values differ (atol {atol}, rtol {rtol}); first at flat index "
        f"{bad[0] if bad else '?'}: {got[bad[0]] if bad else '?'} vs torch {want[bad[0]] if bad else '?'}")


def _materialize(v, device):
    """Recorded arrays the function reads from its closure (``m.tensor(t)``) as webtorch tensors: the browser
    has no NumPy, and webtorch.tensor of a tensor keeps its dtype as torch.tensor of an array does."""
    if isinstance(v, Array):
        return _make(v, device, False)
    if isinstance(v, (list, tuple)):
        return type(v)(_materialize(x, device) for x in v)
    if isinstance(v, dict):
        return {k: _materialize(x, device) for k, x in v.items()}
    return v


def build_function(case, device="webgpu"):
    """The recorded lambda/function, rebuilt from its source in an environment of its recorded names."""
    import importlib
    env = {k: _materialize(decode(v), device) for k, v in case["env"].items()}
    for name, module in case["modules"]:
        env[name] = importlib.import_module(module)
    for src in case["functions"]:
        exec(src, env)  # noqa: S102 -- source recorded from this repository's own tests
    src = case["source"]
    if src.startswith("lambda"):
        return eval(src, env)  # noqa: S307 -- as above
    exec(src, env)  # noqa: S102 -- as above
    return env[src.split("def ", 1)[1].split("(", 1)[0].strip()]


def _values_close(got, want, atol, rtol, what):
    got, want = _flatten(got), _flatten(want)
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if not _close(g, w, atol, rtol)]
    assert len(got) == len(want) and not bad, (
        f"{what}: {len(bad)} of {len(want)} values differ; first at {bad[0] if bad else '?'}: "
        f"{got[bad[0]] if bad else got} vs torch {want[bad[0]] if bad else want}")


def _replay_optim(case, device):
    import webtorch
    got = optimizer_trajectory(webtorch, case["name"], decode(case["kw"]), case["values"], device)
    want = case["expected"]
    for key in ("state_keys", "group_keys", "step"):
        assert got[key] == want[key], f"{key}: {got[key]} != torch {want[key]}"
    _values_close(got["losses"], want["losses"], 1e-5, 1e-4, "losses")
    _values_close(got["params"], want["params"], 1e-5, 1e-4, "final parameters")


def _replay_layer(case, device):
    import webtorch
    make = build_function(case, device)
    call = build_function(case["call"], device) if case["call"] else (lambda layer, *xs: layer(*xs))
    opts = decode(case["options"])
    atol, rtol, grad = opts["atol"], opts["rtol"], opts["grad"]
    ours = make(webtorch)
    layout = [[k, list(v.shape), str(v.dtype)] for k, v in ours.state_dict().items()]
    assert layout == case["layout"], f"state_dict layout {layout} != torch {case['layout']}"
    ours.load_state_dict({k: webtorch.tensor(_nest(decode(v["data"]), v["shape"]), dtype=_dtype(v["tensor"]),
                                             device=device) for k, v in case["state"].items()})
    ours.to(device)
    ours.train(opts["train"])
    args = [decode(a) for a in case["args"]]
    for n, step in enumerate(case["steps"]):
        ins = [_make(a, device, grad) for a in args]
        outs = _flatten(call(ours, *ins))
        assert len(outs) == len(step["outputs"]), f"{len(outs)} outputs, torch gives {len(step['outputs'])}"
        for i, (w, ref) in enumerate(zip(outs, step["outputs"])):
            _compare(w, ref, atol, rtol, f"step {n} output {i}")
        for (k, b), ref in zip(ours.named_buffers(), step["buffers"]):
            _compare(b, ref, atol, rtol, f"step {n} buffer {k}")
        terms = [(w * webtorch.tensor(wt, dtype=w.dtype, device=w.device).reshape(w.shape)).sum()
                 for w, wt in zip(outs, step["weights"]) if wt is not None]
        if not grad or not terms:
            continue
        sum(terms).backward()
        for i, (x, ref) in enumerate(zip(ins, step["input_grads"])):
            if ref is not None:
                assert x.grad is not None, f"step {n}: input {i} has no gradient, torch's has"
                _compare(x.grad, ref, atol, rtol, f"step {n} grad of input {i}")
        for (k, p), ref in zip(ours.named_parameters(), step["param_grads"]):
            if ref is None:
                assert p.grad is None or not any(_flatten(p.grad.reshape(-1).tolist())), f"{k}: torch has no grad"
                continue
            assert p.grad is not None, f"step {n}: grad of parameter {k} missing"
            _compare(p.grad, ref, atol, rtol, f"step {n} grad of parameter {k}")
        ours.zero_grad()


def replay(case, device="webgpu"):
    """Run one recorded case on webtorch (``device``), under the default device it was recorded with, and compare
    with torch's recorded results."""
    import webtorch
    previous = webtorch.get_default_device()
    webtorch.set_default_device(case.get("default_device", "cpu"))
    try:
        return _replay(case, device)
    finally:
        webtorch.set_default_device(previous)


def _replay(case, device):
    import webtorch
    if case["kind"] == "optim":
        return _replay_optim(case, device)
    fn = build_function(case, device)
    args = [decode(a) for a in case["args"]]
    if case["kind"] == "layer":
        if not case.get("needs_numpy"):
            return _replay_layer(case, device)
        fn = lambda m, *a: _replay_layer(case, device)  # noqa: E731 -- expected to raise the error below
    if case.get("needs_numpy"):  # ran as a NumPy host fallback natively: here the clear error that says so
        try:
            fn(webtorch, *[_make(a, device, False) for a in args])
        except RuntimeError as e:
            assert "has no WGSL kernel" in str(e) and "NumPy" in str(e), f"unexpected error: {e}"
            return
        raise AssertionError(f"expected the no-kernel error of {case['needs_numpy']} (no NumPy here)")
    if case["kind"] == "error":
        try:
            fn(webtorch, *[_make(a, device, False) for a in args])
        except Exception as e:  # noqa: BLE001 -- the error is the expected outcome
            names = [c.__name__ for c in type(e).__mro__]
            assert case["torch_error"] in names, f"webtorch raised {type(e).__name__}: {e}; torch raised " \
                                                 f"{case['torch_error']}"
            assert case["match"] is None or case["match"] in str(e), f"message {str(e)!r} lacks {case['match']!r}"
            return
        raise AssertionError(f"webtorch did not raise; torch raised {case['torch_error']}")
    opts = decode(case["options"])
    atol, rtol = opts.get("atol", 1e-5), opts.get("rtol", 1e-4)
    grad = opts.get("grad", True)
    ins = [_make(a, device, grad) for a in args]
    flat = _flatten(fn(webtorch, *ins))
    assert len(flat) == len(case["expected"]), f"{len(flat)} outputs, torch gives {len(case['expected'])}"
    for i, (w, ref) in enumerate(zip(flat, case["expected"])):
        if "tensor" in ref:
            if w.device.type != "cpu":
                assert str(w.device).startswith(device), f"output {i} on {w.device}, expected {device}"
            _compare(w, ref, atol, rtol, f"output {i}")
        else:
            t = decode(ref["value"])
            assert w == t or (isinstance(t, float) and _close(w, t, atol, rtol)), f"output {i}: {w!r} != torch {t!r}"
    if not case["grads"]:
        return
    terms = []
    for w, weight in zip(flat, case["weights"]):
        if weight is not None:
            assert w.requires_grad, "output does not require grad but torch's does"
            terms.append((w * webtorch.tensor(weight, dtype=w.dtype, device=w.device).reshape(w.shape)).sum())
    grads = webtorch.autograd.grad(sum(terms), _leaves(ins), allow_unused=True)
    g_atol, g_rtol = opts.get("grad_atol") or atol, opts.get("grad_rtol") or rtol
    for i, (g, ref) in enumerate(zip(grads, case["grads"])):
        if ref is None:
            assert g is None or not any(_flatten(g.reshape(-1).tolist())), f"grad {i}: torch has none, ours is nonzero"
            continue
        assert g is not None, f"grad {i}: torch has a gradient, webtorch has none"
        _compare(g, ref, g_atol, g_rtol, f"grad of input {i}")
