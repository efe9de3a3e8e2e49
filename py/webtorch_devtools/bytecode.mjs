// Compile a wheel's build folder to bytecode inside Pyodide itself (Node + the npm pyodide package), so the
// .pyc files carry the magic number and the bytecode of the Python the browser runs. Run by bytecode.py:
//
//   node bytecode.mjs PYODIDE_DIR BUILD_LIB PACKAGE
//
// Writes PACKAGE/**/x.pyc beside each x.py (sourceless layout, unchecked-hash: no timestamps, reproducible),
// with code file names under Pyodide's site-packages (where web/loader.js unpacks the wheel), and prints
// {"python": version, "magic": hex, "compiled": n} as JSON.
const [pyodideDir, buildLib, pkg] = process.argv.slice(2);
const { loadPyodide } = await import(`${pyodideDir}/pyodide.mjs`);
const py = await loadPyodide({ indexURL: `${pyodideDir}/` });
py.FS.mkdir("/build");
py.FS.mount(py.FS.filesystems.NODEFS, { root: buildLib }, "/build");
py.globals.set("PKG", pkg);
const out = py.runPython(`
import compileall, importlib.util, json, os, py_compile, sysconfig
root = "/build/" + PKG
ok = compileall.compile_dir(root, ddir=os.path.join(sysconfig.get_path("purelib"), PKG), quiet=1, legacy=True,
                            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, workers=1)
n = sum(f.endswith(".pyc") for _, _, fs in os.walk(root) for f in fs)
json.dumps({"ok": bool(ok), "python": sysconfig.get_python_version(), "magic": importlib.util.MAGIC_NUMBER.hex(),
            "compiled": n})
`);
process.stdout.write(out);
