// Compile a wheel's build folder to bytecode inside Pyodide itself (Node + the npm pyodide package), so the
// .pyc files carry the magic number and the bytecode of the Python the browser runs. Run by bytecode.py:
//
//   node bytecode.mjs PYODIDE_DIR BUILD_LIB PACKAGE ARCHIVE KEEP_JSON ZSTD_LEVEL DATA_SUFFIXES_JSON ON_DEMAND_ARCHIVE
//        ON_DEMAND_JSON
//
// Compiles PACKAGE/**/x.py to x.pyc beside it (sourceless layout, unchecked-hash: no timestamps, reproducible),
// with code file names under Pyodide's site-packages (where web/loader.js unpacks the wheel), then packs every
// .pyc but those of KEEP_JSON (paths under PACKAGE), and the data files whose names end as DATA_SUFFIXES_JSON
// says, into PACKAGE/ARCHIVE (Zstandard; webtorch/_bytecode_archive.py reads it) -- but the modules under the names
// of ON_DEMAND_JSON, which go into PACKAGE/ON_DEMAND_ARCHIVE, ARCHIVE keeping their names and its SHA-256 -- and
// prints {"python": version, "magic": hex, "compiled": n, "archived": n, ...} as JSON. What the wheel has no use for
// is left out (bytecode.py says why): docstrings (optimize=2; the runtime has no assert statements) and the column
// ranges of each instruction (PYTHONNODEBUGRANGES); and ARCHIVE's modules have no line tables: each code object's
// is one giving no location, the originals are in ON_DEMAND_ARCHIVE ({module: tables}, webtorch/_line_tables.py's
// walk order; it restores them at run time).
const [pyodideDir, buildLib, pkg, archive, keep, level, dataSuffixes, onDemandArchive, onDemand] = process.argv.slice(2);
const { loadPyodide } = await import(`${pyodideDir}/pyodide.mjs`);
const py = await loadPyodide({ indexURL: `${pyodideDir}/`, env: { PYTHONNODEBUGRANGES: "1" } });
py.FS.mkdir("/build");
py.FS.mount(py.FS.filesystems.NODEFS, { root: buildLib }, "/build");
py.globals.set("PKG", pkg);
py.globals.set("ARCHIVE", archive);
py.globals.set("KEEP", keep);
py.globals.set("LEVEL", Number(level));
py.globals.set("DATA", dataSuffixes);
py.globals.set("ON_DEMAND_ARCHIVE", onDemandArchive);
py.globals.set("ON_DEMAND", onDemand);
const out = py.runPython(`
import compileall, hashlib, importlib.util, json, os, py_compile, sys, sysconfig, types
root = "/build/" + PKG
# the code's file names: where web/loader.js writes the wheel, the site-packages folder on sys.path (sysconfig's
# purelib says //lib/..., Pyodide's prefix being /, and tracebacks showed that)
site = next(p for p in sys.path if p.endswith("/site-packages"))
ok = compileall.compile_dir(root, ddir=os.path.join(site, PKG), quiet=1, legacy=True,
                            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, workers=1,
                            optimize=2)
pycs = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".pyc"))
columns = any(c is not None for _, _, c, _ in compile("x = 1", "", "exec").co_positions())
# one archive of every module but those that open it (KEEP): {module name: (is a package, marshalled code)}
from compression import zstd
import marshal
keep = {os.path.join(root, f) for f in json.loads(KEEP)}
modules = {}
for p in pycs:
    if p in keep:
        continue
    with open(p, "rb") as f:
        data = f.read()
    ok = ok and data[:4] == importlib.util.MAGIC_NUMBER
    name = ".".join([PKG] + os.path.relpath(p[:-4], root).split(os.sep))
    package = name.endswith(".__init__")
    modules[name[:-len(".__init__")] if package else name] = (package, data[16:])
    os.remove(p)
# and the package data only Python reads (DATA: file name endings): {path inside the package: bytes}
files = {}
for p in sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(tuple(json.loads(DATA)))):
    with open(p, "rb") as f:
        files[os.path.relpath(p, root).replace(os.sep, "/")] = f.read()
    os.remove(p)
# the second archive: {module name: (is a package, marshalled code)} of the modules under ON_DEMAND's names
prefixes = json.loads(ON_DEMAND)
later = {n: modules.pop(n) for n in sorted(modules) if any(n == p or n.startswith(p + ".") for p in prefixes)}
# the first archive's modules without their line tables: each code object's table (walked as the runtime walks it)
# is replaced by one giving no location, the originals go into the second archive (webtorch/_line_tables.py)
spec = importlib.util.spec_from_file_location("line_tables", os.path.join(root, "_line_tables.py"))
line_tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(line_tables)

def without_lines(code, tables):
    tables.append(code.co_linetable)
    consts = tuple(without_lines(c, tables) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    units = len(code.co_code) // 2
    return code.replace(co_consts=consts, co_linetable=line_tables.no_location(units))

tables = {}
for name, (package, data) in modules.items():
    code = marshal.loads(data)
    tables[name] = []
    stripped = without_lines(code, tables[name])
    walked = line_tables.code_objects(stripped)
    ok = ok and len(walked) == len(tables[name]) == len({id(c) for c in walked}) and all(
        line_tables.units_covered(t) == len(c.co_code) // 2 for c, t in zip(walked, tables[name]))
    modules[name] = (package, marshal.dumps(stripped))
    tables[name] = tuple(tables[name])
second = zstd.compress(marshal.dumps((importlib.util.MAGIC_NUMBER, later, {}, ({}, ""), tables)), level=LEVEL)
with open(os.path.join(root, ON_DEMAND_ARCHIVE), "wb") as f:
    f.write(second)
on_demand = ({n: package for n, (package, _) in later.items()}, hashlib.sha256(second).hexdigest())
with open(os.path.join(root, ARCHIVE), "wb") as f:
    f.write(zstd.compress(marshal.dumps((importlib.util.MAGIC_NUMBER, modules, files, on_demand, {})), level=LEVEL))
json.dumps({"ok": bool(ok) and not columns, "python": sysconfig.get_python_version(),
            "magic": importlib.util.MAGIC_NUMBER.hex(), "compiled": len(pycs), "archived": len(modules) + len(later),
            "on_demand": sum(any(n == p or n.startswith(p + ".") for n in later) for p in prefixes),
            "data_files": len(files),
            "line_tables": {"modules": len(tables), "code_objects": sum(map(len, tables.values())),
                            "bytes": sum(len(t) for ts in tables.values() for t in ts)},
            "optimize": 2, "column_ranges": columns})
`);
process.stdout.write(out);
