// Compile a wheel's build folder to bytecode inside Pyodide itself (Node + the npm pyodide package), so the
// .pyc files carry the magic number and the bytecode of the Python the browser runs. Run by bytecode.py:
//
//   node bytecode.mjs PYODIDE_DIR BUILD_LIB PACKAGE
//
// Writes PACKAGE/**/x.pyc beside each x.py (sourceless layout, unchecked-hash: no timestamps, reproducible),
// with code file names under Pyodide's site-packages (where web/loader.js unpacks the wheel), and prints
// {"python": version, "magic": hex, "compiled": n, ...} as JSON. What the wheel has no use for is left out
// (bytecode.py says why): docstrings (optimize=2; the runtime has no assert statements) and the column
// ranges of each instruction (PYTHONNODEBUGRANGES; line numbers stay).
const [pyodideDir, buildLib, pkg] = process.argv.slice(2);
const { loadPyodide } = await import(`${pyodideDir}/pyodide.mjs`);
const py = await loadPyodide({ indexURL: `${pyodideDir}/`, env: { PYTHONNODEBUGRANGES: "1" } });
py.FS.mkdir("/build");
py.FS.mount(py.FS.filesystems.NODEFS, { root: buildLib }, "/build");
py.globals.set("PKG", pkg);
const out = py.runPython(`
import compileall, importlib.util, json, os, py_compile, sysconfig
root = "/build/" + PKG
ok = compileall.compile_dir(root, ddir=os.path.join(sysconfig.get_path("purelib"), PKG), quiet=1, legacy=True,
                            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, workers=1,
                            optimize=2)
n = sum(f.endswith(".pyc") for _, _, fs in os.walk(root) for f in fs)
columns = any(c is not None for _, _, c, _ in compile("x = 1", "", "exec").co_positions())
json.dumps({"ok": bool(ok) and not columns, "python": sysconfig.get_python_version(),
            "magic": importlib.util.MAGIC_NUMBER.hex(), "compiled": n, "optimize": 2, "column_ranges": columns})
`);
process.stdout.write(out);
