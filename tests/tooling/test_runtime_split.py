"""The runtime (py/webtorch, what Pyodide loads) stands apart from the host tooling (py/webtorch_devtools) and
the tests: no import of webtorch_devtools anywhere in it (function-local ones included), no test helpers on its
path, and its wheel carries the runtime only."""
import ast
import os
import zipfile
from pathlib import Path

from webtorch_devtools.bytecode import ARCHIVE, ARCHIVE_KEEPS
from webtorch_devtools.wheel import build_wheel

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "py" / "webtorch"
HOST_ONLY = ("webtorch_devtools", "pytest", "playwright", "torch", "setuptools")


def _imports(path):
    """(line, module) of every import statement in the file, nested ones included."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.lineno, node.module


def test_runtime_never_imports_host_tooling_or_tests():
    bad = [f"{p.relative_to(ROOT)}:{line}: import {mod}" for p in sorted(RUNTIME.rglob("*.py"))
           for line, mod in _imports(p) if mod.split(".")[0] in HOST_ONLY]
    assert not bad, "the runtime imports host-side packages:\n" + "\n".join(bad)
    text = [p.relative_to(ROOT) for p in RUNTIME.rglob("*.py") if '"tests"' in p.read_text()]
    assert not text, f"runtime files naming the tests folder (test helpers belong under tests/): {text}"


def test_the_scan_sees_function_local_imports(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("def f():\n    if True:\n        from webtorch_devtools.wheel import build_wheel\n")
    assert list(_imports(p)) == [(3, "webtorch_devtools.wheel")]


def test_runtime_wheel_holds_the_runtime_only(tmp_path):
    with zipfile.ZipFile(build_wheel(cache_dir=tmp_path)) as z:
        names = z.namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"webtorch", "webtorch-0.1.0.dist-info"}, tops
    host = [n for n in names if any(s in n for s in ("devtools", "pytest", "oracle", "conftest", "/test_"))]
    assert not host, host
    shipped = {n.split("/", 1)[1] for n in names if n.startswith("webtorch/") and not n.endswith("warmup.json")}
    # the modules' bytecode and the shaders in one archive, but for the two plain .pyc files that open it
    # (webtorch_devtools/bytecode.py; tests/tooling/test_wheel_in_pyodide.py checks the archive holds every other
    # module and kernel); the JS hosts and device "cpu"'s kernels.wasm (scripts/setup.d/0-wasm-kernels.sh) as they are
    data = {(Path(d) / f).relative_to(RUNTIME).as_posix() for d, _, fs in os.walk(RUNTIME, followlinks=True)
            for f in fs if f.endswith((".js", ".wasm"))}  # bridge.js is a link
    expected = data | set(ARCHIVE_KEEPS) | {ARCHIVE}
    assert shipped == expected, (sorted(shipped - expected), sorted(expected - shipped))


def test_runtime_wheel_bytecode_is_pyodides():
    """Compiled by Pyodide's Python (not this CPython), unchecked-hash (reproducible, no source to check)."""
    import importlib.util
    with zipfile.ZipFile(build_wheel()) as z:  # the checkout's cached wheel: the browser tests build it too
        headers = {n: z.read(n)[:8] for n in z.namelist() if n.endswith(".pyc")}
    magics = {h[:4] for h in headers.values()}
    assert len(magics) == 1 and magics != {importlib.util.MAGIC_NUMBER}, magics
    assert {int.from_bytes(h[4:8], "little") for h in headers.values()} == {0b01}  # hash-based, unchecked
