"""Step capture and replay on webgpu (webtorch.webgpu.Graph / graph, backends/webgpu/capture.py) and the reuse of a
repeating flush's schedule (backends/webgpu/plan_cache.py): replay equals eager equals PyTorch, what a replay could not
repeat raises inside a capture, a changed queue is scheduled afresh, capturable Adam/AdamW as PyTorch's."""
import gc
import runpy
from pathlib import Path

import pytest
import torch

import webtorch
from webtorch.backends.webgpu import get_backend
from webtorch.backends.webgpu.plan_cache import _compare

STEPS = 4  # steps compared: eager STEPS steps == one warm-up step + a capture replayed STEPS - 1 times


@pytest.fixture
def webgpu():
    if not webtorch.webgpu.is_available():
        raise RuntimeError("no WebGPU adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    return "webgpu"


def _gpt_ish(m):
    nn, F = m.nn, m.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(11, 16), nn.Embedding(6, 16)
            # no bias on q, k, v: the key bias has a zero gradient in exact math, which Adam turns rounding noise of
            # into full-size steps (in PyTorch as here)
            self.ln1, self.attn, self.proj = nn.LayerNorm(16), nn.Linear(16, 48, bias=False), nn.Linear(16, 16)
            self.ln2, self.fc, self.fc2 = nn.LayerNorm(16), nn.Linear(16, 32), nn.Linear(32, 16)
            self.head = nn.Linear(16, 11, bias=False)

        def forward(self, idx):
            b, t = idx.shape
            x = self.wte(idx) + self.wpe(m.arange(t, device=idx.device))
            q, k, v = self.attn(self.ln1(x)).split(16, dim=2)
            q, k, v = (z.view(b, t, 2, 8).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, 16)
            x = x + self.proj(y)
            x = x + self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))
            return self.head(x).reshape(b * t, 11)
    return Net()


def _lstm_ish(m):
    nn = m.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(4, 8, num_layers=2, batch_first=True)
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out[:, -1])
    return Net()


def _mlp(m):
    nn = m.nn
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))


MODELS = {"mlp": _mlp, "lstm": _lstm_ish, "gpt": _gpt_ish}
OPTIMS = {"mlp": ("Adam", {"lr": 0.05}), "lstm": ("SGD", {"lr": 0.1, "momentum": 0.9}),
          "gpt": ("AdamW", {"lr": 0.02, "weight_decay": 0.1})}


def _data(name, k):
    """Batch k of model ``name`` as torch tensors (inputs, targets)."""
    g = torch.Generator().manual_seed(100 + k)
    if name == "gpt":
        idx = torch.randint(0, 11, (2, 6), generator=g)
        return idx, torch.randint(0, 11, (12,), generator=g)
    shape = (3, 5, 4) if name == "lstm" else (5, 6)
    return torch.randn(*shape, generator=g), torch.randint(0, 3, (shape[0],), generator=g)


def _setup(m, name, device, init):
    torch.manual_seed(0)
    model = MODELS[name](m).to(device)
    with m.no_grad():
        for p, v in zip(model.parameters(), init):
            p.copy_(m.tensor(v.tolist(), device=device))
    opt_name, kw = OPTIMS[name]
    if m is webtorch and opt_name != "SGD":
        kw = dict(kw, capturable=True)
    opt = getattr(m.optim, opt_name)(model.parameters(), **kw)
    return model, opt


def _initial(name):
    torch.manual_seed(0)
    return [p.detach().clone() for p in MODELS[name](torch).parameters()]


def _step(m, model, opt, x, y):
    loss = m.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def _to(t, device):
    return webtorch.tensor(t.tolist(), dtype=webtorch.int64 if t.dtype == torch.int64 else webtorch.float32,
                           device=device)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_replay_equals_eager_equals_torch(webgpu, name):
    init = _initial(name)
    batches = [_data(name, k) for k in range(STEPS)]
    # PyTorch, eager
    model_t, opt_t = _setup(torch, name, "cpu", init)
    losses_t = []
    for x, y in batches:
        opt_t.zero_grad()
        losses_t.append(_step(torch, model_t, opt_t, x, y).item())
    # webtorch, eager
    model_e, opt_e = _setup(webtorch, name, webgpu, init)
    losses_e = []
    for x, y in batches:
        opt_e.zero_grad()
        losses_e.append(_step(webtorch, model_e, opt_e, _to(x, webgpu), _to(y, webgpu)).item())
    # webtorch: a warm-up step, then one capture replayed for the other batches
    model_r, opt_r = _setup(webtorch, name, webgpu, init)
    static_x, static_y = _to(batches[0][0], webgpu), _to(batches[0][1], webgpu)
    opt_r.zero_grad()
    losses_r = [_step(webtorch, model_r, opt_r, static_x, static_y).item()]
    opt_r.zero_grad()
    g = webtorch.webgpu.Graph()
    with webtorch.webgpu.graph(g):
        static_loss = _step(webtorch, model_r, opt_r, static_x, static_y)
    assert g.dispatches() > 0
    for x, y in batches[1:]:
        static_x.copy_(_to(x, webgpu))
        static_y.copy_(_to(y, webgpu))
        g.replay()
        losses_r.append(static_loss.item())
    assert losses_r == losses_e  # the same kernels over the same values: bit for bit
    for pr, pe, pt in zip(model_r.parameters(), model_e.parameters(), model_t.parameters()):
        assert pr.tolist() == pe.tolist()
        assert torch.allclose(torch.tensor(pr.tolist()), pt.detach(), rtol=1e-4, atol=1e-5)
    assert losses_e == pytest.approx(losses_t, rel=1e-4, abs=1e-5)
    if name != "lstm":  # Adam/AdamW: the step count lives on the device and counts the replays
        step = opt_r.state[next(model_r.parameters())]["step"]
        assert (step.device.type, step.dtype, step.item()) == ("webgpu", webtorch.float32, float(STEPS))


def _captured(fn):
    """Run ``fn`` inside a capture of a fresh Graph; the error it raises, after checking the capture was dropped."""
    g = webtorch.webgpu.Graph()
    with pytest.raises(RuntimeError) as info:
        with webtorch.webgpu.graph(g):
            fn()
    assert not webtorch.webgpu.is_current_stream_capturing()
    with pytest.raises(RuntimeError, match="holds no capture"):
        g.replay()
    return str(info.value)


def test_what_a_replay_cannot_repeat_raises(webgpu):
    x = webtorch.ones(4, device=webgpu)
    assert "reading a webgpu tensor" in _captured(lambda: (x * 2).sum().item())
    assert "reading a webgpu tensor" in _captured(lambda: print(x + 1))
    assert "reading a webgpu tensor" in _captured(lambda: (x + 1).cpu())
    assert "from host data" in _captured(lambda: webtorch.tensor([1.0, 2.0], device=webgpu))
    assert "random numbers" in _captured(lambda: webtorch.randn(3, device=webgpu))
    assert "random numbers" in _captured(lambda: webtorch.nn.functional.dropout(x, 0.5))
    assert "synchronize" in _captured(webtorch.webgpu.synchronize)
    assert "runs on the host" in _captured(lambda: webtorch.unique(x))
    # the device goes on normally afterwards, and the work recorded inside the failed capture never ran
    y = webtorch.zeros(3, device=webgpu)
    _captured(lambda: (y.add_(5), y.item()))
    assert y.tolist() == [0.0, 0.0, 0.0]
    assert (x * 3).tolist() == [3.0] * 4


def _grads(device):
    w = webtorch.ones(3, device=device, requires_grad=True)
    (w * w).sum().backward()
    return w


def test_optimizer_steps_inside_a_capture(webgpu):
    w = _grads(webgpu)
    msg = _captured(webtorch.optim.Adam([w]).step)
    assert "capturable is False" in msg  # PyTorch's message
    assert "cannot be captured" in _captured(webtorch.optim.RMSprop([w], capturable=True).step)
    assert "warm-up step" in _captured(webtorch.optim.SGD([w], lr=0.1, momentum=0.9).step)
    opt = webtorch.optim.SGD([w], lr=0.1, momentum=0.9)
    opt.step()  # warm-up: the momentum buffers exist, so SGD captures (lr baked in, as in PyTorch)
    g = webtorch.webgpu.Graph()
    with webtorch.webgpu.graph(g):
        opt.step()
    g.replay()
    g.replay()
    # grad 2: buf 2, 3.8, 5.42 -> w = 1 - 0.1 * (2 + 3.8 + 5.42)
    assert w.tolist() == pytest.approx([1 - 0.1 * 11.22] * 3, rel=1e-6)


def test_graph_misuse(webgpu):
    g = webtorch.webgpu.Graph()
    with pytest.raises(RuntimeError, match="holds no capture"):
        g.replay()
    x = webtorch.ones(2, device=webgpu)
    with webtorch.webgpu.graph(g):
        assert webtorch.webgpu.is_current_stream_capturing()
        with pytest.raises(RuntimeError, match="do not nest"):
            webtorch.webgpu.Graph().capture_begin()
        y = x * 2
    with pytest.raises(RuntimeError, match="already holds a capture"):
        g.capture_begin()
    with pytest.raises(TypeError, match="takes a webtorch.webgpu.Graph"):
        webtorch.webgpu.graph(object())
    g.replay()
    assert y.tolist() == [2.0, 2.0]
    g.reset()
    with webtorch.webgpu.graph(g):  # a reset graph captures again
        y.add_(x)
    g.replay()
    g.replay()
    assert y.tolist() == [4.0, 4.0]
    assert webtorch.webgpu.CUDAGraph is webtorch.webgpu.Graph


def test_capture_keeps_its_memory_until_reset(webgpu):
    x = webtorch.ones(4096, device=webgpu)
    before = webtorch.webgpu.memory_allocated()
    g = webtorch.webgpu.Graph()
    with webtorch.webgpu.graph(g):
        out = ((x + 1) * 2).sum()  # the intermediate x + 1 has no tensor: the graph holds what it binds
    del out
    assert webtorch.webgpu.memory_allocated() > before
    g.reset()
    assert webtorch.webgpu.memory_allocated() == before


def test_capturable_adam_matches_torch(webgpu):
    for kw in ({"amsgrad": True, "weight_decay": 0.1}, {"maximize": True}, {"weight_decay": 0.05, "betas": (0.8, 0.9)}):
        for cls in ("Adam", "AdamW"):
            start = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
            wt = torch.tensor(start, requires_grad=True)
            ww = webtorch.tensor(start, device=webgpu, requires_grad=True)
            ot = getattr(torch.optim, cls)([wt], lr=0.1, **kw)
            ow = getattr(webtorch.optim, cls)([ww], lr=0.1, capturable=True, **kw)
            for _ in range(5):
                for m, w, o in ((torch, wt, ot), (webtorch, ww, ow)):
                    o.zero_grad()
                    ((w * w).sum() + m.sin(w).sum()).backward()
                    o.step()
            # the bias corrections come from the float32 step on the device (as on CUDA): float32 rounding
            assert torch.allclose(torch.tensor(ww.tolist()), wt.detach(), rtol=1e-5, atol=2e-5), (cls, kw)
            step = ow.state[ww]["step"]
            assert (step.device.type, step.dtype, step.item()) == ("webgpu", webtorch.float32, 5.0)
            assert ow.state_dict()["param_groups"][0]["capturable"] is True


def _plan_cache():
    return get_backend().recorder.plans


def test_repeating_flush_reuses_its_schedule_and_changes_invalidate(webgpu):
    rep = _plan_cache()

    def run(x, c):
        return ((x * c).relu() + x.sum()).tolist()

    x = webtorch.tensor([[1.0, -2.0], [3.0, 4.0]], device=webgpu)
    first = run(x, 2.0)
    hits = rep.hits
    assert run(x, 2.0) == first and rep.hits == hits + 1  # the same queue: reused
    misses = rep.misses
    assert run(x, -2.0) == [[6.0, 10.0], [6.0, 6.0]] and rep.misses == misses + 1  # another constant
    y = webtorch.tensor([1.0, -2.0, 3.0], device=webgpu)
    assert run(y, 2.0) == [4.0, 2.0, 8.0] and rep.misses == misses + 2  # another shape
    assert run(x.t(), 2.0) == [[8.0, 12.0], [6.0, 14.0]] and rep.misses == misses + 3  # another geometry
    keep = x * 2  # a tensor now holds what the fused queue dropped before: scheduled afresh
    assert (keep + 1).tolist() == [[3.0, -3.0], [7.0, 9.0]]


def test_plan_cache_is_a_bounded_lru(webgpu, monkeypatch):
    """One-off shapes age out of the plan cache; the queue that repeats between them keeps its plan."""
    rep = _plan_cache()
    monkeypatch.setattr(rep.plans, "maxsize", 3)
    x = webtorch.tensor([1.0, -2.0, 3.0], device=webgpu)

    def step():
        return ((x * 2).relu() + 1).tolist()

    gc.disable()  # which tensors are alive is part of a flush's key: no collection at random points here
    try:
        step()
        for n in range(2, 8):  # new shapes, one after another, each between two repeats of the step
            ((webtorch.ones(n, device=webgpu) * 3).relu() + 1).tolist()
            hits = rep.hits
            assert step() == [3.0, 1.0, 7.0] and rep.hits == hits + 1, n
            assert len(rep.plans) <= 3
    finally:
        gc.enable()


def test_optimizer_steps_reuse_their_schedule_with_new_bias_corrections(webgpu, monkeypatch):
    # the fused Adam kernel's parameters (bias corrections) change every step; the schedule around them does not
    rep = _plan_cache()
    monkeypatch.setattr(rep, "check", True)  # and each reuse is compared with a fresh schedule
    w = webtorch.tensor([0.5, -1.0, 2.0], device=webgpu, requires_grad=True)
    wt = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    opt, opt_t = webtorch.optim.Adam([w], lr=0.1), torch.optim.Adam([wt], lr=0.1)
    hits = rep.hits
    gc.disable()
    try:
        for _ in range(4):
            for m, p, o in ((webtorch, w, opt), (torch, wt, opt_t)):
                o.zero_grad()
                (p * p).sum().backward()
                o.step()
            w.tolist()
    finally:
        gc.enable()
    assert rep.hits >= hits + 2
    assert w.tolist() == pytest.approx(wt.tolist(), rel=1e-6)


def test_check_mode_compares_reused_schedules(webgpu, monkeypatch):
    rep = _plan_cache()
    monkeypatch.setattr(rep, "check", True)
    init = _initial("gpt")
    model, opt = _setup(webtorch, "gpt", webgpu, init)
    x, y = (_to(t, webgpu) for t in _data("gpt", 0))
    checked = rep.checked
    gc.disable()  # which tensors are alive is part of a flush's key: no collection at random points here
    try:
        for _ in range(4):  # the first creates the optimizer state, the second is the steady step's first
            opt.zero_grad()
            _step(webtorch, model, opt, x, y).item()
    finally:
        gc.enable()
    assert rep.checked >= checked + 2
    # a plan that differs from the fresh schedule is caught, naming the dispatch
    from webtorch.backends.webgpu.runtime import Batch
    a, b = Batch(), Batch()
    a.add(1, [2, 3], b"\0" * 16, (4, 1, 1))
    b.add(1, [2, 3], b"\1" * 16, (4, 1, 1))
    with pytest.raises(AssertionError, match="differs from a fresh one at dispatch 0"):
        _compare(a, b, 7)


def test_torch_cuda_graph_names_point_to_webgpu():
    assert webtorch.cuda.is_current_stream_capturing() is False
    for make in (webtorch.cuda.CUDAGraph, lambda: webtorch.cuda.graph(None)):
        with pytest.raises(RuntimeError, match="webtorch.webgpu.Graph"):
            make()


def test_capture_replay_script_natively(webgpu):
    # the script tests/browser/test_capture_browser.py runs inside Pyodide
    out = runpy.run_path(str(Path(__file__).resolve().parents[2] / "browser" / "scripts" / "capture_replay.py"))["main"]()
    assert out["replayed"] == out["eager"] and out["same_params"], out
    assert out["per_replay"] == [{"submits": 1, "readbacks": 1}] * len(out["per_replay"])


def _opt_step_dispatches(step):
    webtorch.webgpu.synchronize()
    before = webtorch.webgpu.stats()["dispatches"]
    step()
    webtorch.webgpu.synchronize()
    return webtorch.webgpu.stats()["dispatches"] - before


def _torch_adam_steps(cls, kw, starts, grads, n, capturable, monkeypatch):
    """torch's params after n steps; capturable=True runs its capturable math on CPU tensors (torch allows it
    only on accelerators: its device check is widened for the call)."""
    import torch.optim.adam as torch_adam
    monkeypatch.setattr(torch_adam, "_get_capturable_supported_devices", lambda supports_xla=True: ["cpu"])
    ps = [torch.tensor(s, requires_grad=True) for s in starts]
    for p, g in zip(ps, grads):
        p.grad = torch.tensor(g)
    opt = getattr(torch.optim, cls)(ps, lr=0.1, capturable=capturable, foreach=False, **kw)
    for _ in range(n):
        opt.step()
    return [p.detach() for p in ps]


@pytest.mark.parametrize("cls,kw", [("Adam", {}), ("AdamW", {"amsgrad": True, "weight_decay": 0.1}),
                                    ("Adam", {"maximize": True, "weight_decay": 0.05, "betas": (0.8, 0.9)})])
def test_captured_capturable_adam_step_is_the_fused_update(webgpu, cls, kw, monkeypatch):
    """The captured step runs the fused update (counting and reading the step tensors on the device): the
    eager fused step's dispatches plus one for the counting, and each replay is one more step, as torch's."""
    starts = [[[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [0.3, -0.2], [[1.0], [-2.0]]]
    grads = [[[0.1, -0.3, 0.2], [0.05, 0.4, -0.6]], [-0.5, 0.25], [[0.7], [-0.1]]]
    n = 4
    runs = {}
    for capturable in (False, True):
        pw = [webtorch.tensor(s, device=webgpu, requires_grad=True) for s in starts]
        for p, g in zip(pw, grads):
            p.grad = webtorch.tensor(g, device=webgpu)
        ow = getattr(webtorch.optim, cls)(pw, lr=0.1, capturable=capturable, **kw)
        counts = [_opt_step_dispatches(ow.step)]  # the first step creates the state
        if capturable:
            g = webtorch.webgpu.Graph()
            with webtorch.webgpu.graph(g):
                ow.step()
            counts.append(g.dispatches())
            for _ in range(n - 1):  # capturing ran nothing: the replays are steps 2..n
                g.replay()
        else:
            counts += [_opt_step_dispatches(ow.step) for _ in range(n - 1)]
        runs[capturable] = pw, ow, counts
    # the fused update, plus the step counting: one dispatch for all three step tensors
    assert runs[True][2][1] == runs[False][2][1] + 1
    ref = {c: _torch_adam_steps(cls, kw, starts, grads, n, c, monkeypatch) for c in (False, True)}
    for we, wr, tf, tc in zip(runs[False][0], runs[True][0], ref[False], ref[True]):
        we, wr = torch.tensor(we.tolist()), torch.tensor(wr.tolist())
        assert torch.allclose(wr, tc, rtol=1e-6, atol=1e-6), (cls, kw)  # torch's float32 capturable math
        assert torch.allclose(we, tf, rtol=1e-6, atol=1e-6), (cls, kw)
        # float32 bias corrections (1 - 0.999 in float32 is 1e-5 off) against the float64 host ones
        assert torch.allclose(wr, tf, rtol=1e-5, atol=3e-5), (cls, kw)
    steps = [runs[True][1].state[p]["step"] for p in runs[True][0]]
    assert [(s.device.type, s.item()) for s in steps] == [("webgpu", float(n))] * len(starts)


def test_capturable_adam_on_float16_params_stays_on_the_device(webgpu):
    """The fused update is float32: float16 params take the per-tensor capturable path, which captures."""
    w = webtorch.tensor([0.5, -1.0, 2.0], device=webgpu, dtype=webtorch.float16, requires_grad=True)
    w.grad = webtorch.tensor([0.1, -0.3, 0.2], device=webgpu, dtype=webtorch.float16)
    opt = webtorch.optim.Adam([w], lr=0.1, capturable=True)
    opt.step()
    g = webtorch.webgpu.Graph()
    with webtorch.webgpu.graph(g):
        opt.step()
    g.replay()
    wt = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float16, requires_grad=True)
    wt.grad = torch.tensor([0.1, -0.3, 0.2], dtype=torch.float16)
    ot = torch.optim.Adam([wt], lr=0.1)
    ot.step()
    ot.step()
    assert torch.allclose(torch.tensor(w.tolist(), dtype=torch.float16), wt.detach(), atol=2e-3)
    assert opt.state[w]["step"].item() == 2.0
