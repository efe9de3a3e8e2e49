// Module Web Worker running one script: the same runScript as the page, messages relayed to it.
import { runScript } from "../run.js";

self.onmessage = async (ev) => {
  const emit = (kind, text) => self.postMessage({ kind, text: String(text) });
  try {
    emit("done", await runScript(ev.data, emit));
  } catch (e) {
    emit("stderr", `webtorch: ${e && e.stack ? e.stack : e}\n`);
    emit("done", 1);
  }
};
