// One cold import of a webtorch wheel in Pyodide under Node (bench/bench_import.py runs it in a fresh process per
// measurement): boot, install the wheel into site-packages, `import webtorch`, then the modules the first webgpu
// step imports. Prints one JSON line of milliseconds (wall; the import's CPU time too) and module counts.
//
//   node import_time.mjs PYODIDE_DIR WHEEL (unpackArchive|zip_files) [importtime]
//
// unpackArchive: Pyodide's own installer (Python's zipfile through a temporary file), what web/loader.js did;
// zip_files: web/zip_files.js, what it does now (inflated before the boot ends, only the writes after it).
// importtime: Python's -X importtime lines on stderr (PYTHONPROFILEIMPORTTIME).
import { existsSync, readFileSync } from "node:fs";
import { writeFiles, zipEntries, zipFiles } from "../../web/zip_files.js";

const [pyodideDir, wheelPath, how, importtime] = process.argv.slice(2);
const wheel = new Uint8Array(readFileSync(wheelPath));
const { loadPyodide } = await import(`${pyodideDir}/pyodide.mjs`);
const t0 = performance.now();
const inflated = how === "zip_files" ? zipFiles(zipEntries(wheel)) : null;
const inflate = inflated && inflated.then(() => performance.now() - t0);
const py = await loadPyodide({ indexURL: `${pyodideDir}/`, env: importtime ? { PYTHONPROFILEIMPORTTIME: "1" } : {},
  stderr: (line) => process.stderr.write(line + "\n") });
const t1 = performance.now();
const site = py.runPython("import sys; [p for p in sys.path if p.endswith('/site-packages')][0]");
if (how === "zip_files") writeFiles(py, site, await inflated);
else if (how === "unpackArchive") py.unpackArchive(wheel, "wheel", { extractDir: site });
else throw new Error(`unknown install method ${how}`);
const onDemand = wheelPath.replace(/\.whl$/, ".on_demand.zst"); // its on-demand modules: read at first import
if (existsSync(onDemand)) py.FS.writeFile(`${site}/webtorch/_bytecode_on_demand.zst`, readFileSync(onDemand));
const t2 = performance.now();
const cpu = process.cpuUsage(); // CPU time too: wall time on a loaded machine measures the other processes
py.runPython("import importlib; importlib.invalidate_caches(); import webtorch");
const t3 = performance.now();
const importCpu = process.cpuUsage(cpu);
const count = "len([m for m in __import__('sys').modules if m.split('.')[0] == 'webtorch'])";
const atImport = py.runPython(count);
py.runPython("import webtorch.backends.webgpu.backend");
const t4 = performance.now();
// the line tables (webtorch/_line_tables.py) of every module run so far, after what a first training step imports
// (Adam, a checkpoint's save and load), read from the on-demand archive beside the wheel: what the page's background
// restore does once that archive is in hand, and a traceback's synchronous one costs at most
py.runPython("import webtorch.optim.adam, webtorch.serialization.load_objects, webtorch.nn.functional");
const stripped = py.runPython(`import sys
lines = sys.modules.get("webtorch._line_tables")  # None: a wheel with its line tables
[] if lines is None else [c for code in lines._finder().stripped.values() for c in lines.code_objects(code)]`);
const restoring = { code_objects: stripped.length, table_kib: null };
if (stripped.length) {
  restoring.table_kib = py.runPython(`finder = lines._finder()
sum(len(t) for n in finder.stripped for t in finder.line_tables()[n]) / 1024`);
  py.runPython("for m in list(sys.modules):\n    if m.startswith('ctypes'): del sys.modules[m]"); // its import counted
  py.runPython("lines._finder()._line_tables = None");  // read the archive again, as the first restore does
  const r0 = performance.now(), rcpu = process.cpuUsage();
  restoring.all_restored = py.runPython("lines.restore()");
  const rusage = process.cpuUsage(rcpu);
  Object.assign(restoring, { restore_ms: performance.now() - r0, restore_cpu_ms: (rusage.user + rusage.system) / 1000,
    modules: py.runPython("len(lines._finder()._without_lines & set(sys.modules))") });
}
stripped.destroy?.();
console.log(JSON.stringify({
  boot_ms: t1 - t0, inflate_ms: inflate ? await inflate : null, install_ms: t2 - t1, import_ms: t3 - t2,
  import_cpu_ms: (importCpu.user + importCpu.system) / 1000,
  webgpu_backend_import_ms: t4 - t3, modules_at_import: atImport, modules_with_webgpu: py.runPython(count),
  restore: restoring,
  modules_shipped: py.runPython(`import os, sys
archive = getattr(sys.modules.get("webtorch._bytecode_archive"), "finder", None)  # a wheel with the archive
sum(f.endswith((".py", ".pyc")) for _, _, fs in os.walk("${site}/webtorch") for f in fs) + len(
    archive.names() if archive else ())`),
}));
