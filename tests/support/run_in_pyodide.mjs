// Install a wheel into Pyodide under Node the way web/loader.js does (web/zip_files.js) and run Python code;
// prints the value of the code's last expression (a str). tests/tooling/test_wheel_in_pyodide.py runs it.
//
//   node run_in_pyodide.mjs PYODIDE_DIR WHEEL CODE
import { readFileSync } from "node:fs";
import { writeFiles, zipEntries, zipFiles } from "../../web/zip_files.js";

const [pyodideDir, wheelPath, code] = process.argv.slice(2);
const files = zipFiles(zipEntries(new Uint8Array(readFileSync(wheelPath))));
const { loadPyodide } = await import(`${pyodideDir}/pyodide.mjs`);
const py = await loadPyodide({ indexURL: `${pyodideDir}/` });
writeFiles(py, py.runPython("import sys; [p for p in sys.path if p.endswith('/site-packages')][0]"), await files);
process.stdout.write(py.runPython(code));
