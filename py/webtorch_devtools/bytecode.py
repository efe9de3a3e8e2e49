"""Bytecode for the runtime wheel, compiled by Pyodide's own Python (bytecode.mjs under Node), so the browser
imports webtorch without compiling ~270 modules first (in Pyodide under Node, `import webtorch` from sources
took ~6x as long as from bytecode; under load ~1.9-3.4 s from source, ~0.9 s from
bytecode in bench/bench_browser.py's cold start).

The wheel ships the bytecode sourceless (x.pyc in place of x.py): with the sources beside it the wheel grows to
~1.7 MiB for no faster import. Three things are compiled out, each measured on the wheel's size (KiB, deflated):
- column ranges (PYTHONNODEBUGRANGES): 1399 -> ~1100. They only place the ^^^ markers under a traceback's source
  line, and a sourceless module has no source line to mark; tracebacks still name each file and line.
- docstrings (optimize=2): -> 984. Nothing in the runtime reads a docstring, and it has no assert statement
  (optimize's other effect); ``help()``/``obj?`` get them from a file beside the wheel, fetched the first time they
  ask (docstrings.py).
- line tables, in the first archive (below; measured when the wheel was 835.6 KiB): -> 759.0 KiB. Each code
  object's table (its instructions' line numbers: 343 KiB for the 4,751 code objects that ``import webtorch`` and
  a first step run) becomes one that gives every instruction no location, and the originals go into the second
  archive (below), which the page fetches in the background after start. webtorch/_line_tables.py puts them back
  in place (after checking each fits its code) in the background once that archive lands, and before the kernels,
  ``webtorch run --browser`` and ``sys.excepthook`` print a traceback: tracebacks name webtorch's lines as from
  the sources. ``import webtorch`` is no slower; the restore costs ~150 ms, off the critical path
  (bench/results/wheel.md). Dropping the tables outright was not taken: tracebacks would lose their lines.
Then the modules go into one archive, ``webtorch/_bytecode.zst`` ({module name: marshalled code}, Zstandard),
which webtorch/_bytecode_archive.py serves: deflated one by one, as a wheel stores its files, the 335 .pyc took
1014 KiB plus ~65 KiB of zip entries and RECORD lines; compressed together 635 KiB (deflate over the whole, zlib -9:
842; xz: 603, but several times slower to unpack); the WGSL kernels with them (ARCHIVE_DATA) save 31 KiB more.
Wheel 1332 -> 855 KiB; in Pyodide under Node `import webtorch` no slower (CPU 230 -> 208 ms) and the install
191 -> 30 ms (bench/bench_import.py). Only ``__init__`` and the archive's finder stay plain .pyc (ARCHIVE_KEEPS). ``build_hook`` calls ``compile_sourceless`` on the build folder.

The modules a first training step does not import (ON_DEMAND: the NumPy backend, distributions, the Lua-style
nn, the rarer optimizers and schedulers, parametrizations, and what loads at first use: op families, the backends'
rarer kernel families, autograd.functional, ...) go into a second archive of the same form,
``_bytecode_on_demand.zst``, that wheel.py moves out of the wheel to a file beside it (``on_demand_path(wheel)``,
served with it: the page fetches it at their first import, or earlier when idle; webtorch/_bytecode_archive.py,
webtorch/browser/on_demand.py). The first archive lists their names and the second's SHA-256; the second also
holds the first's line tables ({module name: its tables in webtorch/_line_tables.py's walk order}). A wheel built
without wheel.py (a plain ``python -m build``) keeps the second archive inside: it then needs nothing beside it.
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

PYODIDE_ENV = "WEBTORCH_PYODIDE_DIR"  # the npm pyodide package's folder (wheel.py sets it for its builds)
ARCHIVE = "_bytecode.zst"  # webtorch/_bytecode_archive.py's ARCHIVE: the modules it serves
ARCHIVE_KEEPS = ("__init__.pyc", "_bytecode_archive.pyc")  # the package's plain .pyc files: what opens the archive
# package data only Python reads (backends/webgpu/wgsl_loader.py), packed with the modules: 53 KiB deflated one by
# one, ~30 KiB in the archive; what the JS side reads from the wheel (kernels.wasm, warmup.json, *.js) stays a file
ARCHIVE_DATA = (".wgsl",)
# the modules (and packages, with their submodules) of the second archive; tests/tooling/test_on_demand_modules.py
# checks that importing webtorch, the notebook's kernel and a first training step (an MLP and a CNN, on cpu and on
# webgpu, a DataLoader) need none of them. Beside the rarer packages: the op families no first step calls
# (ops/__init__.py ON_FIRST_USE: attention, grid sampling, embedding bags, ...), the backends' kernel families
# loaded at their first call (backends/base.py: scans and sorts, linear algebra, padding, embedding, randperm) and the
# names loaded on first use by webtorch._lazy (autograd.functional, multi-head attention, nn.utils' fusion,
# flat-vector and memory-format helpers). DataLoader's collate and clip_grad_norm_ stay: most PyTorch training loops
# call both in their first step; so do torch.accelerator and the torch.set_*/compile settings (webtorch._settings),
# loaded on first use but in the wheel (PyTorch's own tutorials pick their device with torch.accelerator, scripts
# call torch.compile and set_float32_matmul_precision up front: a host without the archive beside the wheel could not
# run them), and webtorch.compat, which the notebook's kernel imports at every start for its `import torch` alias.
ON_DEMAND = ("webtorch.backends.numpy", "webtorch.distributions", "webtorch.legacy",
             "webtorch.nn.utils.parametrize", "webtorch.nn.utils.parametrizations", "webtorch.autograd.variable",
             *(f"webtorch.optim.{m}" for m in ("lr_scheduler", "lbfgs", "swa_utils", "stateless", "adafactor", "muon",
                                               "adagrad", "nadam", "sparse_adam", "radam", "rmsprop", "adamax",
                                               "adadelta", "asgd", "rprop")),
             *(f"webtorch.ops.{m}" for m in ("attention", "combinatorics", "membership", "grid_sample", "embedding_bag",
                                             "fractional_pooling", "grouped_mm", "counting", "quantile",
                                             "differences", "covariance", "matrix_functions")),
             *(f"webtorch.backends.webgpu.{m}_kernels" for m in ("scan_sort", "linalg", "pad", "embedding",
                                                                 "randperm")),
             *(f"webtorch.backends.wasm.{m}" for m in ("linalg", "sorting", "scan_sort", "unique", "padding",
                                                       "embedding")),
             "webtorch.autograd.functional", "webtorch.nn.multi_head_attention",
             *(f"webtorch.nn.utils.{m}" for m in ("fusion", "convert_parameters", "memory_format")))
ON_DEMAND_ARCHIVE = "_bytecode_on_demand.zst"  # webtorch/_bytecode_archive.py's ON_DEMAND_ARCHIVE
ON_DEMAND_SUFFIX = ".on_demand.zst"  # beside the wheel: <wheel name without .whl> + this
ON_DEMAND_OUT_ENV = "WEBTORCH_ON_DEMAND_OUT"  # where the build moves the second archive (wheel.py sets it)
ZSTD_LEVEL = 22  # the highest: compressing is a build's cost (~3 s), decompressing costs the same at every level


def pyodide_dir(checkout=None):
    """The npm pyodide package: $WEBTORCH_PYODIDE_DIR, else ``checkout``/node_modules/pyodide."""
    d = os.environ.get(PYODIDE_ENV) or (Path(checkout) / "node_modules" / "pyodide" if checkout else None)
    if not d or not (Path(d) / "pyodide.mjs").is_file():
        raise RuntimeError(f"compiling webtorch's bytecode for Pyodide needs the npm pyodide package: run "
                           f"`npm ci` in the checkout or set {PYODIDE_ENV} to its folder (not found: {d})")
    return Path(d)


def on_demand_path(wheel):
    """Where the second archive of ``wheel`` is: beside it, named after it."""
    wheel = Path(wheel)
    return wheel.with_name(wheel.name.removesuffix(".whl") + ON_DEMAND_SUFFIX)


def compile_sourceless(build_lib, package, pyodide):
    """Compile every .py of ``build_lib``/``package`` inside Pyodide, then drop the sources. Returns Pyodide's
    report ({python, magic, compiled})."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("compiling webtorch's bytecode for Pyodide needs Node.js 20+ on PATH")
    data = [p for p in Path(build_lib, package).rglob("*") if p.name.endswith(ARCHIVE_DATA)]  # before it packs them
    r = subprocess.run([node, str(Path(__file__).with_name("bytecode.mjs")), str(Path(pyodide).resolve()),
                        str(Path(build_lib).resolve()), package, ARCHIVE, json.dumps(ARCHIVE_KEEPS), str(ZSTD_LEVEL),
                        json.dumps(ARCHIVE_DATA), ON_DEMAND_ARCHIVE, json.dumps(ON_DEMAND)],
                       capture_output=True, text=True, check=False)
    report = json.loads(r.stdout) if r.returncode == 0 and r.stdout.startswith("{") else None
    sources = sorted(Path(build_lib, package).rglob("*.py"))
    if (report is None or not report["ok"] or report["compiled"] != len(sources)
            or report["archived"] != len(sources) - len(ARCHIVE_KEEPS) or report["data_files"] != len(data)
            or report["on_demand"] != len(ON_DEMAND)):
        raise RuntimeError(f"compiling webtorch's bytecode inside Pyodide failed (exit {r.returncode}, "
                           f"{report}):\n{r.stderr[-3000:]}")
    for p in sources:
        p.unlink()
    out = os.environ.get(ON_DEMAND_OUT_ENV)
    if out:
        shutil.move(Path(build_lib, package, ON_DEMAND_ARCHIVE), out)
    return report


if __name__ == "__main__":  # python -m webtorch_devtools.bytecode BUILD_LIB CHECKOUT (build_hook runs it)
    import sys
    print(json.dumps(compile_sourceless(sys.argv[1], "webtorch", pyodide_dir(sys.argv[2]))))
