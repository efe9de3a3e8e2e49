"""The runtime wheel as the browser gets it, checked in Pyodide under Node (no browser): installed by
web/zip_files.js as web/loader.js installs it, its bytecode still names the source's files and lines in a
traceback (once its line tables are restored: webtorch/_line_tables.py) though docstrings, column ranges and line
tables were compiled out and the modules come from one archive
(webtorch_devtools/bytecode.py, webtorch/_bytecode_archive.py), ``import webtorch`` leaves the large modules it
does not need unimported, and the wheel stays within its size budget."""
import ast
import gzip
import inspect
import json
import os
import traceback
from pathlib import Path

import webtorch
from webtorch_devtools.docstrings import docstring_table, docstrings_path
from webtorch_devtools.wgsl_comments import without_comment_lines
from webtorch_devtools.wheel import build_wheel

from in_pyodide import run_json
from lazy_modules import NOT_AT_IMPORT  # and "numbers", which CPython imports at start-up itself

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "py" / "webtorch"
# deflated KiB; 984 when set (was 1399 before docstrings and column ranges were compiled out). Raise it only
# for code that must ship, and say so in the commit: every KiB is downloaded by every page that trains.
# 1024 -> 1040: the fused capturable Adam/AdamW (step tensors counted on the device: optim_step_count.wgsl) that
# explicit step capture needs, and the ops/_core package (1028 KiB with them).
# 1040 -> 1264: device "cpu" in the page, kernels.wasm (1027 KiB, 145 KiB deflated) and backends/wasm (1246 KiB).
# 1264 -> 1340: session 5's merged features (1332 KiB): the WebAssembly backend's remaining families (conv, pooling,
# norms, optimizers, scans, linalg: kernels.wasm 1081 KiB, 153 deflated), tensors past one binding (binding
# windows), value checks through the error word, the notebook's tqdm/IPython.display/package loading, lazy modules,
# grid_sample, AdaptiveLogSoftmaxWithLoss, Adafactor and the PyTorch module paths.
# 1340 -> 860: the modules' bytecode and the WGSL kernels in one Zstandard archive (855 KiB: webtorch/_bytecode.zst
# 663 KiB in place of 335 .pyc and 37 .wgsl, 1014 + 53 KiB deflated one by one plus their zip entries; kernels.wasm
# 153 and warmup.json 19 KiB deflated). Every feature above ships; bench/bench_import.py: import no slower, install
# 6x faster.
# 860 -> 900: session 6's merged features (899 KiB): orthogonal parametrization (matrix_exp, geqrf,
# householder_product), fractional max pooling, Muon, linear_cross_entropy, memory formats (archive 663 -> 693 KiB);
# device "cpu"'s worker threads and faster elementwise paths (kernels.wasm 1150 KiB, 165 deflated, built without
# binaryen's wasm-opt on every machine); block splits of every webgpu family past one binding; the cuda alias;
# 900 -> 905: the webgpu limits and adapter features as per-device objects (901 KiB).
# 905 -> 895: kernels.wasm's families no training step runs built without unrolling (-10 KiB; the docstrings'
# loader is in, their table beside the wheel, not in it). Where the rest goes: bench/bench_wheel_size.py.
# 895 -> 945: sparse COO tensors, embedding(sparse=True) gradients, SparseAdam and the sparse paths of
# SGD/Adagrad, torch.layout and torch.sparse (+8 KiB); device "cpu"'s fused elementwise chains: the ew_chain_<ct>
# kernels (kernels.wasm +28 KiB, +6 KiB deflated: float32, float64, int64 -- vectorized loops; -Os would halve
# them and lose the SIMD) and chain.py (+3 KiB); DataPipes, __torch_function__ overrides, grouped_mm: 940 KiB;
# one constant class for layout and memory_format: 943 KiB (+2 for the build's variation between clones).
# 945 -> 954: the float8 dtypes (952 KiB): their storage and c10's conversions on both cpu backends (kernels.wasm
# +1.6 KiB deflated: two cast kernels for the five formats, wasm-kernels/float8.c; bytecode +7 KiB with the NumPy
# backend's float8.py), float8 checkpoints both ways, F.scaled_mm / torch._scaled_mm and their enums.
# 945 -> 820: the modules a first training step does not import (NumPy backend, distributions, the Lua-style nn,
# the rarer optimizers and schedulers, parametrizations: 121 KiB) in a second archive beside the wheel, fetched at
# their first import (webtorch/browser/on_demand.py): 841 KiB; the WGSL kernels without their comment lines in the
# archive and the warm-up manifest (webtorch_devtools/wgsl_comments.py): 818 KiB (bench/results/wheel.md).
# Both, with the sweep's resample_taps kernels and the zero-size paths merged beside them: 833 KiB (+3 for the
# build's variation between clones).
# 836 -> 785: what a first training step imports but never runs (op families, kernel families of the backends,
# autograd.functional, multi-head attention, settings, nn.utils helpers: ops/__init__.py ON_FIRST_USE, backends/
# base.py load_family, webtorch._lazy) moves to the second archive (+52.6 KiB there) and kernels.wasm loses its
# name section (-7.7 KiB): 781.8 KiB (+3 for the build's variation between clones).
# 785 -> 770: the zip deflated by Zopfli (webtorch_devtools/wheel_zip.py; kernels.wasm -10 KiB) and the shipped
# bridge.js/wasm_host.js minified (js_minify.py, -5 KiB); webtorch.compat back in the wheel (the kernel's torch
# alias, imported at every notebook start): 766.9 KiB.
# 770 -> 700 (issue 20's goal): the first archive's line tables (3,937 code objects at `import webtorch`; 264 KiB of
# them there) moved to the on-demand archive beside the wheel, restored at run time (webtorch/_line_tables.py):
# 759.0 KiB alone, 697.4 KiB with everything above (on-demand archive 251 KiB; torch.accelerator and the
# torch.set_*/compile settings stay in the wheel: +1.2 KiB).
WHEEL_BUDGET_KIB = 700

PROBE = """
import importlib, json, os, sys, traceback
import webtorch
try:
    webtorch.device("nonsense")
except RuntimeError as e:
    webtorch._line_tables.restore()  # from the on-demand archive beside the wheel (tests/tooling/test_line_tables.py)
    frames = [(os.path.relpath(f.filename, os.path.dirname(webtorch.__file__)), f.lineno)
              for f in traceback.extract_tb(e.__traceback__)]
    code = e.__traceback__.tb_next.tb_frame.f_code
    names = [f.filename for f in traceback.extract_tb(e.__traceback__)[1:]]
    in_package = all(n.startswith(os.path.dirname(webtorch.__file__) + "/") for n in names)
json.dumps({"frames": frames, "in_package": in_package,
            "columns": [c for _, _, c, _ in code.co_positions() if c is not None],
            "doc": webtorch.load.__doc__, "imported": sorted(m for m in %r if m in sys.modules),
            "archived": webtorch._bytecode_archive.finder.names(), "file": webtorch.nn.functional.__file__,
            "shaders": (lambda w: {n: w.template(n) for n in w.names()})(  # imported after "imported" is taken
                importlib.import_module("webtorch.backends.webgpu.wgsl_loader"))})
"""


# help() on a class loaded before the docstrings arrive and on one imported after (webtorch/_bytecode_archive.py's
# loader sets those), from the table beside the wheel (webtorch_devtools/docstrings.py; the page fetches it:
# webtorch/browser/docstrings.py). Only these modules' rows travel in the probe (a command line has a size limit).
DOC_MODULES = ("webtorch", "webtorch.nn.modules.linear", "webtorch.nn.modules.module", "webtorch.optim.adam")
DOC_PROBE = """
import inspect, json, pydoc
import webtorch
from webtorch import _docstrings
before = webtorch.nn.Linear.__doc__
_docstrings.attach(json.loads(%r))
from webtorch.optim import adam
json.dumps({"before": before, "package": webtorch.__doc__, "linear": inspect.getdoc(webtorch.nn.Linear),
            "forward": inspect.getdoc(webtorch.nn.Linear.forward), "adam": inspect.getdoc(adam.Adam),
            "help": pydoc.render_doc(webtorch.nn.Linear, renderer=pydoc.plaintext)})
"""


def _host_frames():
    try:
        webtorch.device("nonsense")
    except RuntimeError as e:
        return [[os.path.relpath(f.filename, RUNTIME), f.lineno] for f in traceback.extract_tb(e.__traceback__)]


def test_wheel_in_pyodide():
    got = run_json(build_wheel(), PROBE % (tuple(NOT_AT_IMPORT) + ("numbers",),))
    # the same files and lines as CPython's traceback from the sources (webtorch's frames; the first is ours)
    assert got["frames"][1:] == _host_frames()[1:] and got["frames"][-1][0] == "_device.py", got["frames"]
    assert got["in_package"], "the code's file names are not the package's files (webtorch.__file__'s folder)"
    assert got["columns"] == [] and got["doc"] is None and webtorch.load.__doc__, got
    assert got["imported"] == [], f"import webtorch imported {got['imported']} (they load on first use)"
    # every module but the two that open the archive comes from it, under the file name it would have had
    modules = {".".join(("webtorch",) + p.relative_to(RUNTIME).with_suffix("").parts).removesuffix(".__init__")
               for p in RUNTIME.rglob("*.py")}
    assert set(got["archived"]) == modules - {"webtorch", "webtorch._bytecode_archive"}, got["archived"]
    assert got["file"].endswith("/site-packages/webtorch/nn/functional.pyc"), got["file"]
    # and every WGSL kernel, as its file reads without its comment lines (webtorch_devtools/wgsl_comments.py)
    shipped = {p.stem: without_comment_lines(p.read_text()) for p in (ROOT / "webgpu-shaders").glob("*.wgsl")}
    assert got["shaders"] == shipped


def test_runtime_has_no_assert_statements():
    """The wheel's bytecode is compiled with optimize=2, which drops assert statements: the runtime must not
    rely on one (raise an error that names the problem instead)."""
    found = [f"{p.relative_to(ROOT)}:{n.lineno}" for p in sorted(RUNTIME.rglob("*.py"))
             for n in ast.walk(ast.parse(p.read_text(), str(p))) if isinstance(n, ast.Assert)]
    assert not found, found


def test_wheel_within_budget():
    kib = build_wheel().stat().st_size / 1024
    assert kib <= WHEEL_BUDGET_KIB, (f"the runtime wheel is {kib:.0f} KiB, over its budget of {WHEEL_BUDGET_KIB} "
                                     "KiB (tests/tooling/test_wheel_in_pyodide.py says when to raise it)")


def test_docstrings_beside_the_wheel_set_on_demand():
    table = docstring_table(RUNTIME)
    wheel = build_wheel()
    assert json.loads(gzip.decompress(docstrings_path(wheel).read_bytes())) == table
    rows = {m: table[m] for m in DOC_MODULES}
    got = run_json(wheel, DOC_PROBE % json.dumps(rows))
    from webtorch.nn import Linear
    from webtorch.optim.adam import Adam
    assert got["before"] is None  # compiled out of the wheel
    assert got["package"] == webtorch.__doc__ and got["linear"] == inspect.getdoc(Linear), got
    assert got["forward"] == inspect.getdoc(Linear.forward) and got["adam"] == inspect.getdoc(Adam), got
    assert inspect.getdoc(Linear).splitlines()[0] in got["help"], got["help"]
