// The webtorch notebook app: boots the kernel worker, shows the notebook, wires the toolbar, Jupyter's
// keyboard shortcuts, autosave (IndexedDB), .ipynb open/download and the sidebar panels.
import { $ } from "./dom.js";
import { ALIAS_KEY, CUDA_KEY, configURL, started } from "./kernel_start.js";
import { fromIpynb, newCellId, toIpynb } from "./ipynb.js";
import { loadNotebook, saveNotebook } from "./store.js";
import { downloadBlob, setUpFiles, showDevice, showFiles, showNotebookList } from "./panels.js";

const AUTOSAVE_MS = 800;
const LAST_KEY = "webtorch-notebook-last";

class App {
  async boot() {
    // the kernel is already booting (kernel_start.js, loaded ahead of this module)
    const { config, kernel, ready } = await started;
    this.configURL = configURL;
    this.config = config;
    this.kernel = kernel;
    $("torch-alias").checked = kernel.torchAlias;
    $("cuda-alias").value = kernel.cuda;
    this.stats = null;
    this.saveTimer = null;
    this.lastSaveMs = null;
    const showStatus = (status) => {
      document.body.dataset.kernel = status;
      $("kernel-status").querySelector(".label").textContent = status;
      if (status === "idle") showFiles(this);
    };
    this.kernel.addEventListener("status", (e) => showStatus(e.detail));
    this.kernel.addEventListener("ready", (e) => this.kernelReady(e.detail));
    this.kernel.addEventListener("died", (e) => this.banner(`${e.detail}. Restart it (↻ Restart) to go on.`, true));
    this.kernel.addEventListener("devices", () => showDevice(this, this.kernel.info, this.stats));
    this.kernel.addEventListener("stats", (e) => { this.stats = e.detail; showDevice(this, this.kernel.info, this.stats); });
    // Pyodide boots in the worker while the editor and the output renderers (notebook.js: vendor.js's libraries,
    // most of the page's code) load here
    showDevice(this, null, null);
    ready.catch((e) => this.banner(`The kernel failed to start: ${e.message}`, true));
    if (kernel.status !== "starting") showStatus(kernel.status);  // ready (or dead) before these listeners
    if (kernel.info) this.kernelReady(kernel.info);
    const { Notebook } = await import("./notebook.js");
    this.notebook = new Notebook($("notebook"), this.kernel, (kind) => this.changed(kind));
    this.wireToolbar();
    this.wireKeyboard();
    setUpFiles(this);
    await this.openInitial();
  }

  kernelReady(info) {
    this.kernelReadyAt ??= performance.now();  // page load -> first kernel ready (bench/bench_notebook.py)
    this.copyTutorialFiles();
    showDevice(this, info, this.stats);
    if (info.webgpuError) {
      this.banner(`WebGPU is not available in this browser (${info.webgpuError}). Cells run on device "cpu" `
        + "(WebAssembly, this machine's CPU); for the GPU use a browser with WebGPU (Chrome or Edge 113+, Safari 26, "
        + "Firefox 141+ on Windows).");
    }
  }

  banner(text, error = false) {
    const b = $("banner");
    b.textContent = text;
    b.classList.toggle("error", error);
    b.hidden = !text;
  }

  // ---- notebooks ---------------------------------------------------------------------------------------
  async openInitial() {
    const params = new URLSearchParams(location.search);
    if (params.get("open")) return this.openURL(new URL(params.get("open"), location.href).href);
    const id = params.get("nb") || localStorage.getItem(LAST_KEY);
    if (id && await loadNotebook(id)) return this.openLocal(id);
    const first = (this.config.tutorials || [])[0];
    if (!id && first) return this.openURL(new URL(first.url, this.configURL).href);  // a first visit: a tutorial
    return this.newNotebook();
  }

  show(id, name, source, nb) {
    this.id = id;
    this.source = source || null;
    $("nb-name").value = name;
    document.title = `${name} — webtorch notebook`;
    this.notebook.load(nb);
    this.copyTutorialFiles();
    this.saveURL = this.config.saveURL && source === new URL(this.config.saveURL, this.configURL).href ? source : null;
    document.querySelector("[data-action=save-file]").hidden = !this.saveURL;
    localStorage.setItem(LAST_KEY, id);
    const params = new URLSearchParams(location.search);
    params.delete("open");
    params.set("nb", id);
    history.replaceState(null, "", `${location.pathname}?${params}`);
    this.setSaveState("");
    showNotebookList(this);
  }

  /** A tutorial finds its data and helpers in the kernel's working folder (examples/notebooks/README.md):
   * copied there when one is open and the kernel (re)starts. Cells queued meanwhile wait for the copy. */
  copyTutorialFiles() {
    const t = this.config.tutorialFiles;
    const base = t && new URL(t.base, this.configURL).href;
    if (!t || !t.files.length || !this.source || !this.source.startsWith(base) || this.kernel.status === "starting") return;
    if (this.copiedFor === this.kernel.worker) return;
    this.copiedFor = this.kernel.worker;
    this.kernel.fetchFiles(base, t.files).then(() => showFiles(this))
      .catch((e) => this.banner(`Could not copy the tutorial's files into the kernel: ${e.message}`, true));
  }

  newNotebook() {
    this.show(`local-${newCellId()}`, "Untitled", null, { cells: [] });
    this.save();
  }

  async openLocal(id) {
    const rec = await loadNotebook(id);
    if (!rec) return this.banner(`notebook ${id} is not saved in this browser`, true);
    this.show(rec.id, rec.name, rec.source, fromIpynb(rec.nb));
  }

  /** Open a notebook from a URL; its autosaved copy (edits, outputs) wins when there is one. */
  async openURL(url) {
    const id = `url-${url}`;
    if (await loadNotebook(id)) return this.openLocal(id);
    try {
      const r = await fetch(url);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      const name = decodeURIComponent(url.split("/").pop().replace(/\.ipynb$/, ""));
      this.show(id, name, url, fromIpynb(await r.json()));
      this.save();
    } catch (e) {
      this.banner(`Could not open ${url}: ${e.message}`, true);
      if (!this.id) this.newNotebook();
    }
  }

  async openFile(file) {
    try {
      const nb = fromIpynb(JSON.parse(await file.text()));
      this.show(`file-${newCellId()}`, file.name.replace(/\.ipynb$/, ""), file.name, nb);
      this.save();
    } catch (e) {
      this.banner(`Could not open ${file.name}: ${e.message}`, true);
    }
  }

  ipynb() {
    return toIpynb(this.notebook.cells.map((c) => c.data), this.notebook.metadata, (ci, oi) => this.notebook.snapshot(ci, oi));
  }

  changed(kind) {
    this.setSaveState("edited");
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.save(), kind === "output" ? AUTOSAVE_MS * 2 : AUTOSAVE_MS);
  }

  async save() {
    clearTimeout(this.saveTimer);
    const t0 = performance.now();
    const nb = toIpynb(this.notebook.cells.map((c) => c.data), this.notebook.metadata);
    await saveNotebook({ id: this.id, name: $("nb-name").value || "Untitled", source: this.source, nb });
    this.lastSaveMs = performance.now() - t0;
    this.setSaveState("saved");
  }

  setSaveState(s) {
    $("save-state").textContent = s === "saved" ? "autosaved" : s === "edited" ? "edited…" : "";
  }

  /** Write the notebook back to the file `webtorch notebook PATH` opened. */
  async saveFile() {
    const r = await fetch(this.saveURL, { method: "PUT", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(this.ipynb(), null, 1) + "\n" });
    if (!r.ok) return this.banner(`Could not save: ${await r.text()}`, true);
    await this.save();
    $("save-state").textContent = "saved to disk";
  }

  download() {
    const name = ($("nb-name").value || "Untitled").replace(/[\\/:*?"<>|]/g, "_");
    downloadBlob(new Blob([JSON.stringify(this.ipynb(), null, 1) + "\n"], { type: "application/x-ipynb+json" }), `${name}.ipynb`);
  }

  // ---- kernel actions ----------------------------------------------------------------------------------
  async interrupt() {
    const running = this.kernel.current;
    if (!(await this.kernel.interrupt())) {
      this.notebook.resetCounts();
      this.banner("Interrupt needs a cross-origin isolated page (COOP/COEP headers, which `webtorch notebook` "
        + "sends): the kernel was restarted instead, and its variables are gone.");
      return;
    }
    // Python sees the interrupt between bytecodes; a cell blocked inside one call (a wait on the GPU) may not
    setTimeout(() => {
      if (running && this.kernel.current === running) {
        this.banner("The running cell has not stopped 3 s after the interrupt (it may be blocked waiting inside "
          + "one call). Restart the kernel (↻ Restart) to stop it; its variables will be lost.");
      }
    }, 3000);
  }

  async restart() {
    this.notebook.resetCounts();
    this.banner("");
    this.kernel.torchAlias = $("torch-alias").checked;
    this.kernel.cuda = $("cuda-alias").value;
    this.stats = null;
    showDevice(this, null, null);
    await this.kernel.restart().catch((e) => this.banner(`The kernel failed to start: ${e.message}`, true));
  }

  // ---- wiring ------------------------------------------------------------------------------------------
  wireToolbar() {
    const nb = () => this.notebook;
    const actions = {
      new: () => this.newNotebook(),
      open: () => $("open-input").click(),
      download: () => this.download(),
      "save-file": () => this.saveFile(),
      "add-code": () => nb().add(nb().selected + 1, "code"),
      "add-markdown": () => { nb().add(nb().selected + 1, "markdown"); nb().edit(); },
      run: () => nb().runAt(nb().selected, true),
      "run-above": () => nb().runAbove(),
      "run-all": () => nb().runAll(),
      interrupt: () => this.interrupt(),
      restart: () => this.restart(),
    };
    document.querySelectorAll("#toolbar [data-action]").forEach((b) => b.addEventListener("click", () => actions[b.dataset.action]()));
    $("open-input").addEventListener("change", (e) => { if (e.target.files[0]) this.openFile(e.target.files[0]); e.target.value = ""; });
    $("nb-name").addEventListener("change", () => { document.title = `${$("nb-name").value} — webtorch notebook`; this.save().then(() => showNotebookList(this)); });
    $("torch-alias").addEventListener("change", (e) => {
      localStorage.setItem(ALIAS_KEY, e.target.checked ? "on" : "off");
      this.restart();
    });
    $("cuda-alias").addEventListener("change", (e) => {  // a fresh kernel: device("cuda") objects made before stay
      localStorage.setItem(CUDA_KEY, e.target.value);
      this.restart();
    });
  }

  /** Jupyter's command mode: A/B insert, D D delete, M/Y type, Enter edits, arrows/J/K move, I I interrupts,
   * 0 0 restarts, Shift/Ctrl+Enter run; Ctrl+S saves now. (Edit mode's keys live in the editors.) */
  wireKeyboard() {
    let lastKey = null, lastAt = 0;
    document.addEventListener("keydown", (e) => {
      const nb = this.notebook;
      if ((e.ctrlKey || e.metaKey) && e.key === "s") {
        e.preventDefault();
        if (this.saveURL) this.saveFile(); else this.save();
        return;
      }
      const t = e.target;
      if (nb.mode === "edit" || t.closest?.(".cm-editor") || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName)) return;
      const twice = (k) => { const hit = lastKey === k && performance.now() - lastAt < 600; lastKey = k; lastAt = performance.now(); return hit; };
      const key = e.key;
      let handled = true;
      if (key === "Enter" && e.shiftKey) nb.runAt(nb.selected, true);
      else if (key === "Enter" && (e.ctrlKey || e.metaKey)) nb.runAt(nb.selected, false);
      else if (key === "Enter" && e.altKey) nb.runAt(nb.selected, true, true);
      else if (key === "Enter") nb.edit();
      else if (e.ctrlKey || e.metaKey || e.altKey) handled = false;
      else if (key === "a" || key === "A") nb.add(nb.selected, "code");
      else if (key === "b" || key === "B") nb.add(nb.selected + 1, "code");
      else if (key === "d") { if (twice("d")) { nb.remove(nb.selected); lastKey = null; } }
      else if (key === "m") nb.setType(nb.selected, "markdown");
      else if (key === "y") nb.setType(nb.selected, "code");
      else if (key === "ArrowUp" || key === "k") nb.select(nb.selected - 1);
      else if (key === "ArrowDown" || key === "j") nb.select(nb.selected + 1);
      else if (key === "i") { if (twice("i")) this.interrupt(); }
      else if (key === "0") { if (twice("0")) this.restart(); }
      else handled = false;
      if (handled) e.preventDefault();
    });
  }
}

const app = new App();
globalThis.webtorchNotebook = app;  // for the browser tests and the benchmark (timings, autosave cost)
app.boot().catch((e) => app.banner(`The notebook app failed to start: ${e.message}`, true));
