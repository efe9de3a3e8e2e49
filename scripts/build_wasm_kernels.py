"""Builds py/webtorch/backends/wasm/kernels.wasm: every wasm-kernels/*.c plus the generated C (wasm-kernels/
generate.py), compiled by clang-14 for wasm32 with SIMD128 and linked by wasm-ld-14 into one module.

The module imports its memory, shared (the host provides it: wasmtime in CPython, JS in the page) and links only libm
from Debian's wasi-libc (pure functions: the module imports nothing else). Run by scripts/setup.d/0-wasm-kernels.sh;
rebuilds only when a source is newer than the module.
"""
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "wasm-kernels")
GEN = os.path.join(ROOT, "build", "wasm-kernels")
OUT = os.path.join(ROOT, "py", "webtorch", "backends", "wasm", "kernels.wasm")
LLVM = "/usr/lib/llvm-14"
# -matomics / --shared-memory: the module imports a shared memory, so the page's worker threads can instantiate it on
# the same memory (thread-local storage, local-exec: wasm-kernels/threads.c); one module for every host
CFLAGS = ["--target=wasm32-wasi", "-msimd128", "-mbulk-memory", "-mnontrapping-fptoint", "-mmutable-globals",
          "-msign-ext", "-matomics", "-ftls-model=local-exec", "-fno-math-errno", "-ffp-contract=off", "-Wall",
          "-Wno-unused-variable", "-I", SRC]
# hand-written kernels: -O3; the generated ones (hundreds of small loops): vectorized but not unrolled, half the size.
# The hand-written families no training step runs (COLD: indexing, linear algebra, scans and sorts, unique, padding)
# take the generated ones' flags too: 35-45% fewer deflated bytes each, 11 KiB of the wheel (bench/results/wheel.md).
# -Os/-Oz would be smaller still but turn clang's loop vectorizer off (no SIMD at all in the casts).
OPT = ["-O3"]
OPT_GENERATED = ["-O2", "-fno-unroll-loops"]
COLD = ("index.c", "linalg.c", "scan_sort.c", "unique.c", "pad.c")
# --strip-all: no "name" section (function names only a debugger shows; the hosts look exports up by their export
# names): 31,974 bytes raw, 7.7 KiB of the wheel
LDFLAGS = ["-nostartfiles", "-Wl,--no-entry", "-Wl,--import-memory", "-Wl,--shared-memory",
           "-Wl,--max-memory=4294967296", "-Wl,--export=__heap_base", "-Wl,--export=__stack_pointer",
           "-Wl,-z,stack-size=1048576", "-Wl,--strip-all", "-lm",
           f"{LLVM}/lib/clang/14.0.6/lib/wasi/libclang_rt.builtins-wasm32.a"]


def sources():
    sys.path.insert(0, SRC)
    from generate import generated_sources
    os.makedirs(GEN, exist_ok=True)
    paths = []
    for name, text in generated_sources().items():
        p = os.path.join(GEN, name)
        old = open(p).read() if os.path.exists(p) else None
        if old != text:
            with open(p, "w") as f:
                f.write(text)
        paths.append(p)
    return sorted(os.path.join(SRC, f) for f in os.listdir(SRC) if f.endswith(".c")) + paths


def _opt(source):
    return OPT_GENERATED if source.startswith(GEN) or os.path.basename(source) in COLD else OPT


def build(force=False):
    srcs = sources()
    stamp = os.path.join(GEN, "flags")  # objects compiled with other flags (e.g. before -matomics) are stale
    flags = " ".join(CFLAGS + OPT + OPT_GENERATED + list(COLD) + LDFLAGS)
    force = force or not os.path.exists(stamp) or open(stamp).read() != flags
    deps = srcs + [os.path.join(SRC, f) for f in os.listdir(SRC) if f.endswith((".h", ".py"))]
    if not force and os.path.exists(OUT) and os.path.getmtime(OUT) >= max(os.path.getmtime(p) for p in deps):
        return OUT
    clang = os.path.join(LLVM, "bin", "clang")
    if not os.path.exists(clang):
        raise SystemExit("build_wasm_kernels: clang-14 is missing: apt-get install clang-14 lld-14 wasi-libc "
                         "libclang-rt-14-dev-wasm32 (scripts/setup.d/0-wasm-kernels.sh)")
    objs = [os.path.join(GEN, os.path.basename(s)[:-2] + ".o") for s in srcs]
    headers = max((os.path.getmtime(os.path.join(SRC, f)) for f in os.listdir(SRC) if f.endswith(".h")), default=0)
    stale = [(s, o) for s, o in zip(srcs, objs) if force or not os.path.exists(o)
             or os.path.getmtime(o) < max(os.path.getmtime(s), headers)]
    with ThreadPoolExecutor(os.cpu_count()) as pool:  # one clang per stale file, the generated ones the largest
        list(pool.map(lambda so: subprocess.run([clang, *CFLAGS, *_opt(so[0]), "-c", so[0], "-o", so[1]], check=True),
                      stale))
    tmp = OUT + ".tmp"
    with tempfile.TemporaryDirectory() as tools:
        # clang's driver looks its linker up as wasm-ld-14 on the PATH and runs binaryen's wasm-opt after linking
        # whenever it finds one there: a PATH of the linker alone builds the same module on every machine
        os.symlink(f"{LLVM}/bin/wasm-ld", os.path.join(tools, "wasm-ld-14"))
        subprocess.run([clang, *CFLAGS, *OPT, *objs, *LDFLAGS, "-o", tmp], check=True, env=dict(os.environ, PATH=tools))
    os.replace(tmp, OUT)
    with open(stamp, "w") as f:
        f.write(flags)
    return OUT


if __name__ == "__main__":
    path = build(force="--force" in sys.argv)
    print(f"wasm kernels: {os.path.relpath(path, ROOT)} ({os.path.getsize(path) // 1024} KiB)")
