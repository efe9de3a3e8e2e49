"""Does fusing elementwise chains pay on device "cpu" (wasm)? Eager per-op kernels vs one fused pass, measured.

    .venv/bin/python bench/bench_wasm_fusion.py [--repeat 5] [--sizes 1024 65536 ...]

The fused pass is a probe: an expression-program interpreter kernel (``ew_program_<ct>``) generated here from the
same op table as the eager kernels (wasm-kernels/generate.py: its C expressions and SIMD forms), which evaluates a
chain of float32 ops block by block (512 elements per register, in cache), numbers as filled registers. It is linked
with the eager kernels into a probe module (build/wasm-fusion-probe/), which serves "cpu" for this run only. Each op
rounds to float32 as the eager kernel does, so the fused result is bit-identical (checked per row).

Chains: GELU-tanh as ops/activation.py composes it (9 ops on x) and an affine + SiLU (6 ops on x, w, b), on 1K to
1M float32 elements; the eager side is the public ops under no_grad (Python cost per op included), the fused side one
kernel call (the program's words written per call). Each figure is the best of ``repeat`` batches of process time.
Writes bench/results/wasm_fusion.json.
"""
import argparse
import os
import struct
import subprocess
import sys
import time
import timeit

os.environ["WEBTORCH_CPU_BACKEND"] = "wasm"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [os.path.join(ROOT, "scripts"), os.path.join(ROOT, "wasm-kernels")]

import build_wasm_kernels as K  # noqa: E402
from _report import report  # noqa: E402
from generate import SIMD_F32, TYPES, _expr  # noqa: E402

from webtorch.backends.op_facts import BOOL_RESULT, ELEMENTWISE_OPS  # noqa: E402

PROBE_DIR = os.path.join(ROOT, "build", "wasm-fusion-probe")
BLOCK = 512
PROGRAM_OPS = [op for op, n in ELEMENTWISE_OPS.items() if n <= 2 and op not in BOOL_RESULT]


def program_kernel(ct):
    """C of ew_program_<ct>(out, prog, n): prog = [n_in, n_ops, (addr, is_number) per input, (op, dst, a, b) per
    op]; registers 0..n_in-1 are the inputs, the others scratch blocks; the last op writes the output."""
    t = TYPES[ct][0]
    cases = []
    for code, op in enumerate(PROGRAM_OPS):
        e = _expr(op, ct)
        if e is None:
            continue
        if ELEMENTWISE_OPS[op] == 1:
            simd = ""
            if ct == "float32" and op in SIMD_F32:
                simd = (f"for (; i + 4 <= m; i += 4) {{ v128_t a = wasm_v128_load(A + i); "
                        f"wasm_v128_store(D + i, {SIMD_F32[op]}); }} ")
            body = f"{{ int32_t i = 0; {simd}for (; i < m; i++) {{ {t} a = A[i]; D[i] = ({t})({e}); }} }}"
        else:
            body = f"for (int32_t i = 0; i < m; i++) {{ {t} a = A[i], b = B[i]; D[i] = ({t})({e}); }}"
        cases.append(f"      case {code}: {body} break;")
    cases = "\n".join(cases)
    return f"""EXPORT(ew_program_{ct}) void ew_program_{ct}({t} *out, const int32_t *prog, int32_t n) {{
  static {t} reg[16][{BLOCK}] __attribute__((aligned(16)));
  int32_t n_in = prog[0], n_ops = prog[1];
  const int32_t *in = prog + 2, *ops = prog + 2 + 2 * n_in;
  for (int32_t j = 0; j < n_in; j++)
    if (in[2 * j + 1])
      for (int32_t i = 0; i < {BLOCK}; i++) reg[j][i] = *(const {t} *)(intptr_t)in[2 * j];
  for (int32_t base = 0; base < n; base += {BLOCK}) {{
    int32_t m = n - base < {BLOCK} ? n - base : {BLOCK};
    for (int32_t k = 0; k < n_ops; k++) {{
      const int32_t *o = ops + 4 * k;
      {t} *D = k == n_ops - 1 ? out + base : reg[o[1]];
      const {t} *A = o[2] < n_in && !in[2 * o[2] + 1] ? ({t} *)(intptr_t)in[2 * o[2]] + base : reg[o[2]];
      const {t} *B = o[3] < n_in && !in[2 * o[3] + 1] ? ({t} *)(intptr_t)in[2 * o[3]] + base : reg[o[3]];
      switch (o[0]) {{
{cases}
      }}
    }}
  }}
}}
"""


def build_probe():
    """The eager kernels (scripts/build_wasm_kernels.py's objects) plus ew_program_float32, linked as one module."""
    K.build()
    os.makedirs(PROBE_DIR, exist_ok=True)
    src, obj, out = (os.path.join(PROBE_DIR, f) for f in ("program.c", "program.o", "probe.wasm"))
    with open(src, "w") as f:
        f.write('#include "kernels.h"\n#include "math_ops.h"\n#include "simd_math.h"\n' + program_kernel("float32"))
    clang = os.path.join(K.LLVM, "bin", "clang")
    subprocess.run([clang, *K.CFLAGS, *K.OPT_GENERATED, "-c", src, "-o", obj], check=True)
    objs = [os.path.join(K.GEN, os.path.basename(s)[:-2] + ".o") for s in K.sources()]
    env = dict(os.environ, PATH=f"{K.LLVM}/bin:" + os.environ.get("PATH", ""))
    subprocess.run([clang, *K.CFLAGS, *K.OPT, *objs, obj, *K.LDFLAGS, "-o", out], check=True, env=env)
    return out


# chains: (eager function of the named tensors, program (inputs: tensor names or numbers; ops: (op, dst, a, b)))
K_GELU = 0.7978845608028654  # sqrt(2 / pi)
CHAINS = {  # each op writes a register of its own (an op in place on its operand would not vectorize: they overlap)
    "GELU-tanh (9 ops)": (
        lambda x, w, b: x * 0.5 * (1.0 + ((x + x * x * x * 0.044715) * K_GELU).tanh()),
        (["x", 0.5, 1.0, 0.044715, K_GELU],
         [("mul", 5, 0, 1), ("mul", 6, 0, 0), ("mul", 7, 6, 0), ("mul", 8, 7, 3), ("add", 9, 0, 8), ("mul", 10, 9, 4),
          ("tanh", 11, 10, 10), ("add", 12, 2, 11), ("mul", 13, 5, 12)])),
    "affine + SiLU (6 ops)": (
        lambda x, w, b: (lambda y: y * y.sigmoid())((x - 0.25) * 1.5 * w + b),
        (["x", 0.25, 1.5, "w", "b"],
         [("sub", 5, 0, 1), ("mul", 6, 5, 2), ("mul", 7, 6, 3), ("add", 8, 7, 4), ("sigmoid", 9, 8, 8),
          ("mul", 10, 8, 9)])),
}
SIZES = (1024, 16384, 65536, 262144, 1048576)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="element counts (default: 1K to 1M)")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/wasm_fusion.json)")
    args = ap.parse_args()
    from webtorch.backends import wasm
    from webtorch.backends.wasm.backend import WasmBackend
    from webtorch.backends.wasm.runtime_wasmtime import RuntimeWasmtime
    wasm._state["backend"] = be = WasmBackend(RuntimeWasmtime(build_probe()))
    import webtorch
    from webtorch._tensor import _wrap, fresh_geometry
    ctx, f32 = be._ctx, webtorch.float32
    code = {op: i for i, op in enumerate(PROGRAM_OPS)}
    program = ctx.rt.fn("ew_program_float32")

    def fused(prog, tensors, n):
        inputs, ops = prog
        words = [len(inputs), len(ops)]
        for v in inputs:
            words += [tensors[v]._data.addr, 0] if isinstance(v, str) else [ctx.scalar(v, f32), 1]
        for op, d, a, b in ops:
            words += [code[op], d, a, b]
        out = ctx.new((n,), f32)
        program(out.addr, ctx._place(struct.pack(f"<{len(words)}i", *words)), n)
        return out

    def best_us(fn, n):
        number = max(3, 2_000_000 // n)
        fn()
        return min(timeit.repeat(fn, number=number, repeat=args.repeat, timer=time.process_time)) / number * 1e6

    rows = []
    webtorch.manual_seed(0)
    with webtorch.no_grad():
        for n in args.sizes:
            t = {k: webtorch.randn(n) for k in "xwb"}
            for name, (eager, prog) in CHAINS.items():
                ref = eager(**t)
                got = _wrap(fused(prog, t, n), be, ref.device, fresh_geometry((n,)), dtype=f32)
                identical = bool((got.view(webtorch.int32) == ref.view(webtorch.int32)).all())
                per_op, one = best_us(lambda: eager(**t), n), best_us(lambda: fused(prog, t, n), n)
                rows.append({"chain": name, "n": n, "per_op_us": per_op, "fused_us": one, "speedup": per_op / one,
                             "bit_identical": identical})
    report("wasm_fusion", rows, [("chain", "chain", "s"), ("n", "elements", "d"), ("per_op_us", "eager [us]", ".1f"),
                                 ("fused_us", "fused [us]", ".1f"), ("speedup", "eager/fused", ".2f"),
                                 ("bit_identical", "identical", "")],
           path=args.out, repeat=args.repeat, block=BLOCK)


if __name__ == "__main__":
    main()
