"""The in-page half of bench/bench_gpt2_small.py --browser: AdamW steps of the GPT-2-small-shaped model
(bench/browser/models.py's GPTModel, head tied) on the browser's WebGPU inside Pyodide, random init on the device
(no cpu model in the page: NumPy is not there). Reports one "gpt2" JSON to the host: per step seconds and loss,
the pool's bytes, the parameter count, the adapter and its granted limits.

    argv: JSON {"layers": int, "ctx": int, "batch": int, "steps": int}
"""
import json
import sys
import time

from models import GPTModel

import webtorch as wt

VOCAB = 50257


def main(cfg):
    shape = {"layers": cfg["layers"], "d": 768, "heads": 12, "ctx": cfg["ctx"], "vocab": VOCAB}
    wt.manual_seed(0)
    t0 = time.perf_counter()
    model = GPTModel(wt, shape, tied=True).to("webgpu")
    wt.webgpu.synchronize()
    build = time.perf_counter() - t0
    n = cfg["batch"] * (cfg["ctx"] + 1)
    seq = wt.tensor([(i * 7919 + 11) % VOCAB for i in range(n)], device="webgpu").reshape(cfg["batch"], -1)
    x, y = seq[:, :-1].contiguous(), seq[:, 1:].contiguous()
    opt = wt.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.1)
    wt.webgpu.reset_peak_memory_stats()
    rows = []
    for step in range(cfg["steps"]):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = wt.nn.functional.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        opt.step()
        rows.append({"device": "webgpu (page)", "step": step + 1, "loss": loss.item(),
                     "seconds": time.perf_counter() - t0})
    info = wt.webgpu.info()
    return {"rows": rows, "build_seconds": build, "parameters": sum(p.numel() for p in model.parameters()),
            "adapter": info["adapter"], "limits": info["limits"],
            "webgpu_memory": {"memory_allocated": wt.webgpu.memory_allocated(),
                              "max_memory_allocated": wt.webgpu.max_memory_allocated(),
                              "memory_reserved": wt.webgpu.memory_reserved()}}


if __name__ == "__main__":
    from webtorch.browser.runner import report
    report("gpt2", json.dumps(main(json.loads(sys.argv[1]))))
