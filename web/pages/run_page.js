// The page `webtorch run --browser` drives: the host calls webtorchStart(cfg) and receives everything
// through its webtorchEmit binding, ending with ("done", exit status). cfg.worker runs the script in a
// module Web Worker instead (the page only relays).
import { runScript } from "../run.js";

function describe(e) {
  return `webtorch: ${e && e.stack ? e.stack : e}\n`;
}

window.webtorchStart = (cfg) => {
  const emit = (kind, text) => window.webtorchEmit(kind, String(text));
  if (cfg.worker) {
    const w = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    w.onmessage = (ev) => emit(ev.data.kind, ev.data.text);
    w.onerror = (ev) => { emit("stderr", describe(ev.message)); emit("done", 1); };
    w.postMessage(cfg);
  } else {
    runScript(cfg, emit).then((status) => emit("done", status), (e) => { emit("stderr", describe(e)); emit("done", 1); });
  }
  return true;
};
window.webtorchReady = true;
