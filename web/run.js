// One run of a Python script inside Pyodide (page or Web Worker): boot webtorch, unpack the script's
// folder, run it as __main__ through runPythonAsync (so synchronous GPU readback works), report.
// `emit(kind, text)` receives "output" (a JSON list of ["stdout" | "stderr", text] pieces in the order
// they were written), "timing" and "result" JSON, and the reports of webtorch.browser.runner.report.
import { loadWebtorch } from "./loader.js";
import { writeFiles, zipEntries, zipFiles } from "./zip_files.js";

const BURST = 50, SENDS_PER_MS = 0.1, SEND_AT_CHARS = 1 << 18, TIMER_MS = 10;

// stdout/stderr as few messages: every message to the host costs about a millisecond there, so writes
// collect in one ordered list. A write is sent at once while the send budget lasts (up to BURST sends
// back to back, refilled at SENDS_PER_MS: a script printing now and then shows every line immediately;
// a flood is sent every 10 ms); otherwise when the list passes SEND_AT_CHARS, when the event loop turns
// (a timer: during GPU readbacks and after the script) or before any other message.
function outputBatcher(emit) {
  let pieces = [], chars = 0, timer = null, budget = BURST, at = performance.now();
  const refill = () => {
    const now = performance.now();
    budget = Math.min(BURST, budget + (now - at) * SENDS_PER_MS);
    at = now;
  };
  const send = () => {
    if (timer !== null) { clearTimeout(timer); timer = null; }
    if (!pieces.length) return;
    refill();
    budget -= 1;
    const out = JSON.stringify(pieces);
    pieces = []; chars = 0;
    emit("output", out);
  };
  const write = (kind, text) => {
    if (!text) return;
    const last = pieces[pieces.length - 1];
    if (last && last[0] === kind) last[1] += text; else pieces.push([kind, text]);
    chars += text.length;
    refill();
    if (budget >= 1 || chars >= SEND_AT_CHARS) send();
    else if (timer === null) timer = setTimeout(send, TIMER_MS);
  };
  const other = (kind, text) => { send(); return emit(kind, text); };
  return { write, other, send };
}

export async function runScript(cfg, emit) {
  const t0 = performance.now();
  const out = outputBatcher(emit);
  // webtorch.browser.runner.report; in a page, the promise of the host's answer
  globalThis.webtorchReport = (kind, text) => out.other(kind, String(text));
  // the script's folder is fetched and inflated while Pyodide boots
  const files = cfg.filesURL ? fetch(cfg.filesURL).then(async (r) => {
    if (!r.ok) throw new Error(`could not fetch ${cfg.filesURL}: HTTP ${r.status}`);
    return zipFiles(zipEntries(new Uint8Array(await r.arrayBuffer())));
  }) : null;
  files?.catch(() => {}); // reported where it is awaited below
  try {
    const { pyodide, timings } = await loadWebtorch({
      indexURL: cfg.indexURL, wheelURL: cfg.wheelURL, wheelURLs: cfg.wheelURLs || [], packagesURL: cfg.packagesURL,
      cuda: cfg.cuda || "auto", stdout: (s) => out.write("stdout", s), stderr: (s) => out.write("stderr", s),
    });
    if (files) writeFiles(pyodide, cfg.dir, await files);
    out.other("timing", JSON.stringify({ ...timings, readyMs: performance.now() - t0 }));
    const path = JSON.stringify(`${cfg.dir}/${cfg.script}`);
    return await pyodide.runPythonAsync(
      // PyPI's tqdm (installed with webtorch) writes its bars as text lines
      "from webtorch.notebook import tqdm_hook\ntqdm_hook.install()\n"
      + `from webtorch.browser.runner import run_script\nawait run_script(${path}, ${JSON.stringify(cfg.argv || [])})`);
  } finally {
    out.send();
  }
}
