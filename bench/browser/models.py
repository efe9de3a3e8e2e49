"""The benchmark's models, written once against PyTorch's API: run with ``webtorch`` (in Pyodide and in
CPython) and with PyTorch itself (bench_browser.py --native). The peers (bench/browser/peers.js) build the
same models from ``spec(name)``: every parameter's name, shape and initial values (``fill``, a formula both
sides compute), the data and the optimizer, so the first loss of every framework must agree (same math)
and a framework doing less work shows.

    MLP   784-256-10, Adam(1e-3), batch 128
    LeNet the PyTorch tutorial's (1x32x32, conv 6/16 5x5, max-pool 2, fc 120/84/10), SGD(0.01), batch 32
    LSTM  2 layers, input 32, hidden 128, sequence 32, batch 16, last step -> Linear(128, 10), Adam(1e-3)
    GPT   nanoGPT's shape: 2 blocks, d_model 128, 4 heads, context 64, vocab 65, batch 16, AdamW(1e-3, wd 0.01),
          tanh GELU, untied head
"""
import math

MODELS = ("mlp", "lenet", "lstm", "gpt")
LR = {"mlp": 1e-3, "lenet": 0.01, "lstm": 1e-3, "gpt": 1e-3}
OPTIM = {"mlp": "adam", "lenet": "sgd", "lstm": "adam", "gpt": "adamw"}
WEIGHT_DECAY = 0.01
GPT = {"layers": 2, "d": 128, "heads": 4, "ctx": 64, "vocab": 65, "batch": 16}
LSTM = {"layers": 2, "input": 32, "hidden": 128, "seq": 32, "batch": 16, "classes": 10}
DATA = {"mlp": ((128, 784), 10), "lenet": ((32, 1, 32, 32), 10),
        "lstm": ((LSTM["batch"], LSTM["seq"], LSTM["input"]), LSTM["classes"]),
        "gpt": ((GPT["batch"], GPT["ctx"]), GPT["vocab"])}  # (input shape, classes); gpt's input is tokens


def fill(n, seed, scale):
    """n values in [-scale, scale]: the same formula in peers.js (Math.sin), so every framework starts equal."""
    return [scale * math.sin(i * 0.7548776662 + seed * 1.2345) for i in range(n)]


def labels(n, seed, classes):
    return [(i * 7 + seed * 3) % classes for i in range(n)]


def _numel(shape):
    return math.prod(shape)


def spec(name):
    """{"params": [[name, shape, scale or "ones"/"zeros"], ...], "x": shape, "classes", "lr", "optim", ...}:
    the parameters in the order of the PyTorch model's named_parameters(), PyTorch's layouts."""
    p = []
    if name == "mlp":
        for i, (fi, fo) in enumerate(((784, 256), (256, 10))):
            p += [[f"{2 * i}.weight", [fo, fi], fi ** -0.5], [f"{2 * i}.bias", [fo], fi ** -0.5]]
    elif name == "lenet":
        for n, shape in (("conv1", [6, 1, 5, 5]), ("conv2", [16, 6, 5, 5])):
            fan = _numel(shape[1:])
            p += [[f"{n}.weight", shape, fan ** -0.5], [f"{n}.bias", [shape[0]], fan ** -0.5]]
        for n, (fi, fo) in (("fc1", (400, 120)), ("fc2", (120, 84)), ("fc3", (84, 10))):
            p += [[f"{n}.weight", [fo, fi], fi ** -0.5], [f"{n}.bias", [fo], fi ** -0.5]]
    elif name == "lstm":
        h = LSTM["hidden"]
        for layer in range(LSTM["layers"]):
            fi = LSTM["input"] if layer == 0 else h
            p += [[f"rnn.weight_ih_l{layer}", [4 * h, fi], h ** -0.5], [f"rnn.weight_hh_l{layer}", [4 * h, h], h ** -0.5],
                  [f"rnn.bias_ih_l{layer}", [4 * h], h ** -0.5], [f"rnn.bias_hh_l{layer}", [4 * h], h ** -0.5]]
        p += [["head.weight", [LSTM["classes"], h], h ** -0.5], ["head.bias", [LSTM["classes"]], h ** -0.5]]
    elif name == "gpt":
        d, v = GPT["d"], GPT["vocab"]
        p += [["wte.weight", [v, d], 0.02 * 3 ** 0.5], ["wpe.weight", [GPT["ctx"], d], 0.02 * 3 ** 0.5]]
        for b in range(GPT["layers"]):
            for n, (fi, fo) in (("attn", (d, 3 * d)), ("proj", (d, d)), ("fc", (d, 4 * d)), ("fc2", (4 * d, d))):
                if n in ("attn", "fc"):
                    ln = "ln1" if n == "attn" else "ln2"
                    p += [[f"blocks.{b}.{ln}.weight", [d], "ones"], [f"blocks.{b}.{ln}.bias", [d], "zeros"]]
                p += [[f"blocks.{b}.{n}.weight", [fo, fi], fi ** -0.5], [f"blocks.{b}.{n}.bias", [fo], fi ** -0.5]]
        p += [["ln_f.weight", [d], "ones"], ["ln_f.bias", [d], "zeros"], ["head.weight", [v, d], d ** -0.5]]
    else:
        raise ValueError(f"unknown model {name!r}: one of {MODELS}")
    x, classes = DATA[name]
    return {"name": name, "params": p, "x": list(x), "classes": classes, "lr": LR[name], "optim": OPTIM[name],
            "weight_decay": WEIGHT_DECAY, "gpt": GPT, "lstm": LSTM}


def param_values(s):
    """Initial values of ``spec`` s's parameters (flat lists, PyTorch layouts), seeded by position."""
    out = []
    for i, (_, shape, scale) in enumerate(s["params"]):
        n = _numel(shape)
        out.append([1.0] * n if scale == "ones" else [0.0] * n if scale == "zeros" else fill(n, i + 1, scale))
    return out


def batch(s):
    """(inputs as a flat list, targets as a flat list): gpt's inputs are token ids, its targets the next ones."""
    n = _numel(s["x"])
    if s["name"] == "gpt":
        tokens = labels(n + 1, 0, s["classes"])
        return tokens[:n], tokens[1:]
    return fill(n, 0, 1.0), labels(s["x"][0], 1, s["classes"])


def build(torch, name, device):
    """The model (``torch``: webtorch or PyTorch) with spec's initial values, its optimizer, and the data: the
    training step, returning the loss as a float."""
    model, opt, x, y, loss_fn = parts(torch, name, device)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    return step


def parts(torch, name, device, **optim_options):
    """(model, optimizer, inputs, targets, loss function) of ``build``'s step; ``optim_options`` go to the
    optimizer (``capturable=True`` for a captured Adam step)."""
    nn, F = torch.nn, torch.nn.functional
    s = spec(name)
    if name == "mlp":
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    elif name == "lenet":
        model = LeNet(torch)
    elif name == "lstm":
        model = LSTMClassifier(torch)
    else:
        model = GPTModel(torch)
    model = model.to(device)
    names = [n for n, _ in model.named_parameters()]
    assert names == [p[0] for p in s["params"]], (names, [p[0] for p in s["params"]])
    with torch.no_grad():
        for (_, p), (_, shape, _), values in zip(model.named_parameters(), s["params"], param_values(s)):
            p.copy_(torch.tensor(values, device=device).reshape(shape))
    xs, ys = batch(s)
    x = torch.tensor(xs, device=device, dtype=torch.int64 if name == "gpt" else torch.float32).reshape(s["x"])
    y = torch.tensor(ys, device=device, dtype=torch.int64)
    if s["optim"] == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=s["lr"], **optim_options)
    elif s["optim"] == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=s["lr"], weight_decay=s["weight_decay"], **optim_options)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=s["lr"], **optim_options)

    def loss_fn(out, target):
        return F.cross_entropy(out.reshape(-1, s["classes"]), target)
    return model, opt, x, y, loss_fn


def LeNet(torch):
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(1, 6, 5), nn.Conv2d(6, 16, 5)
            self.fc1, self.fc2, self.fc3 = nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = torch.flatten(x, 1)
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))
    return Net()


def LSTMClassifier(torch):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(LSTM["input"], LSTM["hidden"], num_layers=LSTM["layers"], batch_first=True)
            self.head = nn.Linear(LSTM["hidden"], LSTM["classes"])

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out[:, -1])
    return Net()


def GPTModel(torch, cfg=GPT, tied=False):
    """nanoGPT's model of shape ``cfg`` (layers, d, heads, ctx, vocab); ``tied``: the head shares the token
    embedding's weight, as GPT-2's does (bench_gpt2_small.py)."""
    nn, F = torch.nn, torch.nn.functional
    d, heads, ctx, vocab = cfg["d"], cfg["heads"], cfg["ctx"], cfg["vocab"]

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.attn, self.proj = nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.ln2, self.fc, self.fc2 = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.attn(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.view(b, t, heads, d // heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
            x = x + self.proj(y)
            return x + self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
            self.blocks = nn.ModuleList([Block() for _ in range(cfg["layers"])])
            self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)
            if tied:
                self.head.weight = self.wte.weight

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
            for blk in self.blocks:
                x = blk(x)
            return self.head(self.ln_f(x))
    return Net()
