"""One epoch of DataLoader batches from a TensorDataset: webtorch (cpu, webgpu) vs PyTorch, in one run.

    .venv/bin/python bench/bench_dataloader.py [--n 1024] [--batch 64] [--dim 784] [--repeats 5]

Each row times one epoch (n/batch batches, the batch's sum read back at the end so lazy webgpu work is
counted), median of --repeats after a warm-up epoch. "gather" is the default collate (one index_select per
tensor and batch); "per sample" passes a collate_fn of its own, so each sample is indexed and stacked as
PyTorch's default fetcher does. Prints a table (ms/epoch, ratio to PyTorch, webgpu dispatches per epoch) and
writes bench/results/dataloader.json.
"""
import argparse
import statistics
import time

import torch
from _report import report

import webtorch as wt


def _epoch_ms(lib, loader, repeats, sync):
    def epoch():
        total = None
        for xb, yb in loader:
            s = xb.sum() + yb.sum()
            total = s if total is None else total + s
        return total.item()
    epoch()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        epoch()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--dim", type=int, default=784)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    torch.set_num_threads(1)
    rows = []
    for lib, dev in ((torch, "cpu"), (wt, "cpu"), (wt, "webgpu")):
        x = lib.randn(args.n, args.dim, device=dev)
        y = lib.randint(0, 10, (args.n,), device=dev)
        ds = lib.utils.data.TensorDataset(x, y)
        own = lib.utils.data.default_collate
        for how, collate in (("gather", None), ("per sample", lambda b, c=own: c(b))):
            if lib is torch and how == "gather":
                continue  # PyTorch's default fetcher indexes per sample: its row is "per sample"
            kw = {} if collate is None else {"collate_fn": collate}
            loader = lib.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, **kw)
            sync = wt.webgpu.synchronize if dev == "webgpu" else (lambda: None)
            before = wt.webgpu.stats()["dispatches"] if dev == "webgpu" else 0
            ms = _epoch_ms(lib, loader, args.repeats, sync)
            dispatches = (wt.webgpu.stats()["dispatches"] - before) / (args.repeats + 1) if dev == "webgpu" else 0
            rows.append({"library": lib.__name__, "device": dev, "batching": how, "ms_per_epoch": ms,
                         "dispatches_per_epoch": dispatches})
    ref = rows[0]["ms_per_epoch"]
    for r in rows:
        r["ratio_to_torch"] = r["ms_per_epoch"] / ref
    report("dataloader", rows, [("library", "library", "s"), ("device", "device", "s"), ("batching", "batching", "s"),
                                ("ms_per_epoch", "ms/epoch", ".1f"), ("ratio_to_torch", "x torch", ".2f"),
                                ("dispatches_per_epoch", "dispatches", ".0f")],
           title=f"DataLoader epoch: TensorDataset {args.n}x{args.dim} + labels, batch {args.batch}, shuffle=True, "
                 f"median of {args.repeats}", n=args.n, batch=args.batch, dim=args.dim, repeats=args.repeats)


if __name__ == "__main__":
    main()
