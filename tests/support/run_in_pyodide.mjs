// Install a wheel into Pyodide under Node the way web/loader.js does (web/zip_files.js) and run Python code;
// prints the value of the code's last expression (a str). tests/tooling/test_wheel_in_pyodide.py runs it. The wheel's
// on-demand modules, when beside it, are written beside its first archive (no page to fetch them from here:
// webtorch/_bytecode_archive.py reads them there).
//
//   node run_in_pyodide.mjs PYODIDE_DIR WHEEL CODE
import { existsSync, readFileSync } from "node:fs";
import { writeFiles, zipEntries, zipFiles } from "../../web/zip_files.js";

const [pyodideDir, wheelPath, code] = process.argv.slice(2);
const files = zipFiles(zipEntries(new Uint8Array(readFileSync(wheelPath))));
const { loadPyodide } = await import(`${pyodideDir}/pyodide.mjs`);
const py = await loadPyodide({ indexURL: `${pyodideDir}/` });
const site = py.runPython("import sys; [p for p in sys.path if p.endswith('/site-packages')][0]");
writeFiles(py, site, await files);
const onDemand = wheelPath.replace(/\.whl$/, ".on_demand.zst");
if (existsSync(onDemand)) py.FS.writeFile(`${site}/webtorch/_bytecode_on_demand.zst`, readFileSync(onDemand));
process.stdout.write(py.runPython(code));
