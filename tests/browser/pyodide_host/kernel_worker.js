// The worker of index.html: boots Pyodide, unpacks the webtorch wheel, runs code on request.
let pyodide;
self.onmessage = async ({ data }) => {
  const { id } = data;
  try {
    if (id === 0) {
      const { loadPyodide } = await import("/pyodide/pyodide.mjs");
      pyodide = await loadPyodide({ indexURL: "/pyodide/" });
      pyodide.setInterruptBuffer(data.interrupt);
      const wheel = new Uint8Array(await (await fetch(data.wheelURL)).arrayBuffer());
      pyodide.unpackArchive(wheel, "wheel", { extractDir: pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')") });
      self.postMessage({ id, ok: true, value: pyodide.version });
      return;
    }
    const run = data.mode === "sync" ? pyodide.runPython(data.code) : await pyodide.runPythonAsync(data.code);
    self.postMessage({ id, ok: true, value: String(run) });
  } catch (e) {
    self.postMessage({ id, ok: false, value: String(e && e.message ? e.message : e) });
  }
};
