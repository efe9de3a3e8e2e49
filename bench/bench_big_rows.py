"""Row kernels over logits past one binding on the webgpu device: GPT-2's cross-entropy, split and not.

    .venv/bin/python bench/bench_big_rows.py [--vocab 50257] [--reps 3] [--out PATH]
    .venv/bin/python bench/bench_big_rows.py --norms [--binding 1048576] [--reps 3] [--out PATH]

Logits of rows x vocab float32: 768 rows (batch 6 x ctx 128; 154 MB, past lavapipe's 128 MiB
maxStorageBufferBindingSize, so softmax_norm_kernels binds windows of row blocks) against 600 rows (120 MB, one
binding), each timed for log_softmax forward, cross_entropy forward + backward, and a clone of the logits (one
read and write of them: the cost a block copy adds). Per case the best of ``--reps`` seconds after one warm-up;
per split case also its seconds per row against the unsplit case's. Writes bench/results/big_rows.json.

``--norms``: layer_norm over (4096, 768) and batch_norm over (32, 64, 32, 32) float32 (12.6 and 8.4 MB), forward
and forward + backward, and a clone of the input, each timed at the adapter's binding limit (one binding) and
with the limit forced to ``--binding`` bytes (the kernels run in blocks past it); per case the forced time against
the unforced one, and the dispatches and submits of one forced call. Writes bench/results/big_norms.json.
"""
import argparse
import time

from _report import report

import webtorch as wt


def timed(fn, reps):
    """Best seconds of ``fn()`` (its result held until the device is done: a dropped result is never computed)."""
    keep = fn()
    wt.webgpu.synchronize()
    best = float("inf")
    for _ in range(reps):
        del keep
        t0 = time.perf_counter()
        keep = fn()
        wt.webgpu.synchronize()
        best = min(best, time.perf_counter() - t0)
    return best


def cases(rows, vocab):
    F = wt.nn.functional
    wt.manual_seed(0)
    logits = wt.randn(rows, vocab).to("webgpu")
    target = wt.tensor([(i * 7919 + 11) % vocab for i in range(rows)]).to("webgpu")

    def ce():
        x = logits.detach().requires_grad_()
        F.cross_entropy(x, target).backward()
        return x.grad
    return {"clone": lambda: logits.clone(), "log_softmax": lambda: F.log_softmax(logits, -1),
            "cross_entropy fwd+bwd": ce}


def norm_cases():
    F = wt.nn.functional
    wt.manual_seed(0)
    x, w, b = wt.randn(4096, 768).to("webgpu"), wt.randn(768).to("webgpu"), wt.randn(768).to("webgpu")
    img = wt.randn(32, 64, 32, 32).to("webgpu")
    bw, bb = wt.randn(64).to("webgpu"), wt.randn(64).to("webgpu")

    def backward(fn, inputs):
        leaves = [t.detach().requires_grad_() for t in inputs]
        fn(*leaves).square().sum().backward()
        return [t.grad for t in leaves]
    ln = lambda x, w, b: F.layer_norm(x, (768,), w, b)  # noqa: E731
    bn = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)  # noqa: E731
    return {"clone (4096, 768)": lambda: x.clone(), "layer_norm fwd": lambda: ln(x, w, b),
            "layer_norm fwd+bwd": lambda: backward(ln, [x, w, b]), "clone (32, 64, 32, 32)": lambda: img.clone(),
            "batch_norm fwd": lambda: bn(img, bw, bb), "batch_norm fwd+bwd": lambda: backward(bn, [img, bw, bb])}


def norms(args):
    limits = wt.backends.webgpu.get_backend().limits
    rows = []
    for name, fn in norm_cases().items():
        plain = timed(fn, args.reps)
        with limits.forced(binding=args.binding):
            split = timed(fn, args.reps)
            before = wt.webgpu.stats()
            keep = fn()  # noqa: F841 (held until the device is done)
            wt.webgpu.synchronize()
            after = wt.webgpu.stats()
        rows.append({"op": name, "seconds": plain, "forced_seconds": split, "ratio": split / plain,
                     "dispatches": after["dispatches"] - before["dispatches"],
                     "submits": after["submits"] - before["submits"]})
    report("big_norms", rows, [("op", "op", ""), ("seconds", "s, one binding", ".3f"),
                               ("forced_seconds", f"s, limit {args.binding:,} B", ".3f"), ("ratio", "ratio", ".2f"),
                               ("dispatches", "dispatches", "d"), ("submits", "submits", "d")],
           title=f"layer_norm / batch_norm past a forced binding limit ({wt.webgpu.stats()['adapter']})",
           path=args.out, reps=args.reps, binding_limit=args.binding, adapter=wt.webgpu.stats()["adapter"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", help="where to write the JSON (default bench/results/big_rows.json, big_norms.json)")
    ap.add_argument("--norms", action="store_true", help="time layer_norm / batch_norm under a forced limit instead")
    ap.add_argument("--binding", type=int, default=1 << 20, help="the forced binding limit of --norms, in bytes")
    args = ap.parse_args()
    if args.norms:
        return norms(args)
    limit = wt.backends.webgpu.get_backend().limits.binding_size()
    rows = []
    per_row = {}
    for n in (600, 768):
        split = n * args.vocab * 4 > limit
        for name, fn in cases(n, args.vocab).items():
            s = timed(fn, args.reps)
            per_row[(name, split)] = s / n
            rows.append({"op": name, "rows": n, "mbytes": n * args.vocab * 4 / 1e6, "split": split, "seconds": s,
                         "per_row_ratio": s / n / per_row[(name, False)] if split else 1.0})
    report("big_rows", rows, [("op", "op", ""), ("rows", "rows", "d"), ("mbytes", "MB", ".0f"), ("split", "split", ""),
                              ("seconds", "s", ".3f"), ("per_row_ratio", "s/row vs unsplit", ".2f")],
           title=f"row kernels over {args.vocab}-wide logits, binding limit {limit:,} bytes "
                 f"({wt.webgpu.stats()['adapter']})", path=args.out, vocab=args.vocab, reps=args.reps,
           binding_limit=limit, adapter=wt.webgpu.stats()["adapter"])


if __name__ == "__main__":
    main()
