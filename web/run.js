// One run of a Python script inside Pyodide (page or Web Worker): boot webtorch, unpack the script's
// folder, run it as __main__ through runPythonAsync (so synchronous GPU readback works), report.
// `emit(kind, text)` receives "stdout"/"stderr" text as it is written, "timing" and "result" JSON.
import { loadWebtorch } from "./loader.js";

export async function runScript(cfg, emit) {
  const t0 = performance.now();
  globalThis.webtorchReport = (kind, text) => emit(kind, String(text)); // webtorch.browser.runner.report
  const { pyodide, timings } = await loadWebtorch({
    indexURL: cfg.indexURL, wheelURL: cfg.wheelURL, wheelURLs: cfg.wheelURLs || [],
    stdout: (s) => emit("stdout", s), stderr: (s) => emit("stderr", s),
  });
  if (cfg.filesURL) {
    const r = await fetch(cfg.filesURL);
    if (!r.ok) throw new Error(`could not fetch ${cfg.filesURL}: HTTP ${r.status}`);
    pyodide.unpackArchive(new Uint8Array(await r.arrayBuffer()), "zip", { extractDir: cfg.dir });
  }
  emit("timing", JSON.stringify({ ...timings, readyMs: performance.now() - t0 }));
  const path = JSON.stringify(`${cfg.dir}/${cfg.script}`);
  return await pyodide.runPythonAsync(
    `from webtorch.browser.runner import run_script\nawait run_script(${path}, ${JSON.stringify(cfg.argv || [])})`);
}
