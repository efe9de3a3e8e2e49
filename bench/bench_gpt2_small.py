"""Training steps of a GPT-2-small-shaped model on the webgpu device, against the cpu device, in one run.

    .venv/bin/python bench/bench_gpt2_small.py [--layers 12] [--steps 2] [--ctx 128] [--batch 1] [--browser]

GPT-2 small's shape (bench/browser/models.py's GPTModel): 12 blocks, d_model 768, 12 heads, vocab 50,257 with
the head tied to the token embedding, context 128, batch 1: 124M parameters. The token embedding (50,257 x 768
float32, 154 MB) is past lavapipe's maxStorageBufferBindingSize (128 MiB), so every kernel that meets it, its
gradient or its AdamW state binds windows of it (py/webtorch/backends/webgpu/binding_windows.py). Random init
(webtorch.manual_seed(0) on the cpu device), no download; the webgpu model loads the cpu model's state_dict.
Each step: forward, cross-entropy on the next tokens, backward, AdamW(lr 1e-4, weight decay 0.1), loss.item().
Per device: each step's seconds and loss; on webgpu the pool's bytes (memory_allocated after the step,
max_memory_allocated, memory_reserved). Also the largest loss difference between the devices and the largest
difference of the token embedding after the last step. Writes bench/results/gpt2_small.json.

``--browser``: the webgpu steps inside Pyodide in headless Chromium (bench/browser/gpt2_small_steps.py; random
init on the device, no cpu comparison in the page); writes bench/results/gpt2_small_browser.json.
"""
import argparse
import json
import os
import sys
import time

from _report import report

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser"))
from models import GPTModel  # noqa: E402  (bench/browser/models.py: the benchmark's one GPT)

import webtorch as wt  # noqa: E402

VOCAB, D, HEADS = 50257, 768, 12


def tokens(n):
    return [(i * 7919 + 11) % VOCAB for i in range(n)]


def run(model, device, x, y, steps, lib=wt):
    """[(seconds, loss)] of ``steps`` AdamW steps of ``model`` (already on ``device``; ``lib``: webtorch or torch)."""
    F = lib.nn.functional
    opt = lib.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)
    out = []
    for _ in range(steps):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        opt.step()
        value = loss.item()
        if device in ("webgpu", "cuda"):
            getattr(lib, device).synchronize()
        out.append((time.perf_counter() - t0, value))
    return out


def torch_cuda(cfg, state, x, y, steps):
    """The same steps in PyTorch on a CUDA GPU (full float32: TF32 off), where one is seen: webgpu's native peer
    on the same GPU. None without one."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    model = GPTModel(torch, cfg, tied=True)
    model.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy()) for k, v in state.items()})
    model = model.to("cuda")
    tx, ty = (torch.from_numpy(t.numpy().copy()).to("cuda") for t in (x, y))
    return run(model, "cuda", tx, ty, steps, lib=torch)


def browser(args):
    from webtorch_devtools.session import BrowserSession
    cfg = {"layers": args.layers, "ctx": args.ctx, "batch": args.batch, "steps": args.steps}
    here = os.path.dirname(os.path.abspath(__file__))
    with BrowserSession() as session:
        res = session.run(os.path.join(here, "browser", "gpt2_small_steps.py"), [json.dumps(cfg)], timeout=args.timeout)
        version = session.browser.version
    got = [json.loads(t) for k, t in res.reports if k == "gpt2"]
    if res.status != 0 or not got:
        raise SystemExit(f"the in-browser run failed (status {res.status}):\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
    out = got[0]
    mem, mib = out.pop("webgpu_memory"), 2 ** 20
    report("gpt2_small_browser", out.pop("rows"), [("device", "device", ""), ("step", "step", "d"),
                                                   ("seconds", "s/step", ".2f"), ("loss", "loss", ".6f")],
           title=f"GPT-2-small-shaped step in Pyodide, {version} ({args.layers} layers, {out['parameters']:,} "
                 f"parameters, ctx {args.ctx}, batch {args.batch}); webgpu pool: {mem['memory_allocated'] / mib:.0f} "
                 f"MiB allocated, peak {mem['max_memory_allocated'] / mib:.0f} MiB",
           path=args.out, layers=args.layers, ctx=args.ctx, batch=args.batch, browser=version, webgpu_memory=mem, **out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--ctx", type=int, default=128)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--out", help="where to write the JSON (default bench/results/gpt2_small.json)")
    ap.add_argument("--browser", action="store_true", help="inside Pyodide in headless Chromium (WebGPU)")
    ap.add_argument("--timeout", type=float, default=3000, help="seconds for the browser run")
    args = ap.parse_args()
    if args.browser:
        browser(args)
        return
    cfg = {"layers": args.layers, "d": D, "heads": HEADS, "ctx": args.ctx, "vocab": VOCAB}
    wt.manual_seed(0)
    cpu_model = GPTModel(wt, cfg, tied=True)
    n_params = sum(p.numel() for p in cpu_model.parameters())
    t0 = time.perf_counter()
    gpu_model = GPTModel(wt, cfg, tied=True).to("webgpu")
    gpu_model.load_state_dict(cpu_model.state_dict())
    wt.webgpu.synchronize()
    load_s = time.perf_counter() - t0
    seq = tokens(args.batch * (args.ctx + 1))
    data = wt.tensor(seq, dtype=wt.int64).reshape(args.batch, args.ctx + 1)
    x, y = data[:, :-1].contiguous(), data[:, 1:].contiguous()

    wt.webgpu.reset_peak_memory_stats()
    gpu = run(gpu_model, "webgpu", x.to("webgpu"), y.to("webgpu"), args.steps)
    memory = {"memory_allocated": wt.webgpu.memory_allocated(), "max_memory_allocated": wt.webgpu.max_memory_allocated(),
              "memory_reserved": wt.webgpu.memory_reserved()}
    cuda = torch_cuda(cfg, cpu_model.state_dict(), x, y, args.steps)
    cpu = run(cpu_model, "cpu", x, y, args.steps)
    emb_diff = (gpu_model.wte.weight.detach().cpu() - cpu_model.wte.weight.detach()).abs().max().item()
    rows = []
    for device, steps in (("webgpu", gpu), ("cpu", cpu), ("torch-cuda", cuda or [])):
        for i, (sec, loss) in enumerate(steps):
            rows.append({"device": device, "step": i + 1, "seconds": sec, "loss": loss})
    loss_diff = max(abs(g[1] - c[1]) for g, c in zip(gpu, cpu))
    mib = 2 ** 20
    report("gpt2_small", rows, [("device", "device", ""), ("step", "step", "d"), ("seconds", "s/step", ".2f"),
                                ("loss", "loss", ".6f")],
           title=f"GPT-2-small-shaped step ({args.layers} layers, {n_params:,} parameters, ctx {args.ctx}, "
                 f"batch {args.batch}); webgpu pool: {memory['memory_allocated'] / mib:.0f} MiB allocated, peak "
                 f"{memory['max_memory_allocated'] / mib:.0f} MiB, reserved {memory['memory_reserved'] / mib:.0f} MiB; "
                 f"largest loss difference {loss_diff:.2e}, token embedding after the steps {emb_diff:.2e}",
           path=args.out, layers=args.layers, ctx=args.ctx, batch=args.batch, parameters=n_params,
           adapter=wt.webgpu.stats()["adapter"], load_seconds=load_s, webgpu_memory=memory,
           loss_difference=loss_diff, embedding_difference=emb_diff)


if __name__ == "__main__":
    main()
