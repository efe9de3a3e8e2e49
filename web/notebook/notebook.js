// The notebook view: cells (code and Markdown) with CodeMirror editors, Jupyter's command/edit modes, and
// running cells on the kernel with their outputs streaming in.
import {
  EditorView, EditorState, Prec, keymap, drawSelection, placeholder, defaultKeymap, history, historyKeymap,
  indentWithTab, indentOnInput, bracketMatching, syntaxHighlighting, defaultHighlightStyle, indentUnit,
  autocompletion, closeBrackets, closeBracketsKeymap, completionStatus, startCompletion, python,
} from "./build/vendor.js";
import { el } from "./dom.js";
import { newCellId } from "./ipynb.js";
import { renderMarkdown } from "./markdown.js";
import { appendStream, renderOutput, plotSnapshot } from "./outputs.js";

function fmtDuration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function button(label, title, onClick) {
  const b = el("button", "icon", label);
  b.title = title;
  b.addEventListener("click", (e) => { e.stopPropagation(); onClick(); });
  return b;
}

export class Notebook {
  /** `onChange(kind)` after edits ("edit") and outputs ("output"); autosave listens. */
  constructor(container, kernel, onChange = () => {}) {
    this.container = container;
    this.kernel = kernel;
    this.onChange = onChange;
    this.cells = [];
    this.metadata = {};
    this.selected = 0;
    this.mode = "command";
    this.count = 0;
    this.displays = new Map();  // display id -> [{cell, out, box}]
  }

  load({ cells, metadata }) {
    for (const c of this.cells) c.view.editor.destroy();
    this.cells = [];
    this.metadata = metadata || {};
    this.displays.clear();
    this.container.replaceChildren();
    const list = cells.length ? cells : [{ id: newCellId(), cell_type: "code", source: "", metadata: {}, outputs: [], execution_count: null }];
    list.forEach((c, i) => this.insertCell(i, c));
    this.select(0);
  }

  // ---- cells -------------------------------------------------------------------------------------------
  insertCell(index, data) {
    const cell = { data, view: null, running: false };
    cell.view = this.buildView(cell);
    const before = this.cells[index]?.view.root ?? null;
    this.container.insertBefore(cell.view.root, before);
    this.cells.splice(index, 0, cell);
    if (data.cell_type === "markdown") this.renderMarkdownCell(cell, Boolean(data.source));
    for (const out of data.outputs || []) this.showOutput(cell, out, false);  // from a file or storage: untrusted
    this.setPrompt(cell);
    return cell;
  }

  buildView(cell) {
    const root = el("div", `cell ${cell.data.cell_type}`);
    root.dataset.id = cell.data.id;
    const prompt = el("div", "prompt");
    const body = el("div", "cell-body");
    const editorBox = el("div", "editor");
    const rendered = el("div", "rendered markdown-output");
    const outputs = el("div", "outputs");
    const time = el("div", "exec-time");
    const tools = el("div", "cell-tools");
    tools.append(
      button("▶", "Run this cell (Shift+Enter)", () => this.runAt(this.indexOf(cell), false)),
      button("↑", "Move up", () => this.move(this.indexOf(cell), -1)),
      button("↓", "Move down", () => this.move(this.indexOf(cell), 1)),
      button(cell.data.cell_type === "code" ? "M↓" : "{ }", "Switch between code and Markdown (M / Y)",
        () => this.setType(this.indexOf(cell), cell.data.cell_type === "code" ? "markdown" : "code")),
      button("✕", "Delete (D, D)", () => this.remove(this.indexOf(cell))),
    );
    body.append(editorBox, rendered, outputs, time);
    root.append(prompt, body, tools);
    root.addEventListener("mousedown", () => this.select(this.indexOf(cell), { scroll: false }));
    rendered.addEventListener("dblclick", () => this.edit(this.indexOf(cell)));
    const editor = new EditorView({
      parent: editorBox,
      state: EditorState.create({ doc: cell.data.source, extensions: this.editorExtensions(cell) }),
    });
    return { root, prompt, editor, editorBox, rendered, outputs, time };
  }

  editorExtensions(cell) {
    const run = (advance, insert = false) => () => {
      const i = this.indexOf(cell);
      this.runAt(i, advance, insert);
      return true;
    };
    return [
      Prec.highest(keymap.of([
        { key: "Shift-Enter", run: run(true) },
        { key: "Mod-Enter", run: run(false) },
        { key: "Alt-Enter", run: run(true, true) },
        { key: "Escape", run: (view) => {
          if (completionStatus(view.state)) return false;  // Escape closes the completion list first
          this.commandMode();
          return true;
        } },
      ])),
      history(), drawSelection(), indentOnInput(), bracketMatching(), closeBrackets(), indentUnit.of("    "),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
      ...(cell.data.cell_type === "code" ? [python(), ...this.completion()] : [EditorView.lineWrapping]),
      placeholder(cell.data.cell_type === "code" ? "Python code — Shift+Enter runs" : "Markdown text — Shift+Enter renders"),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) {
          cell.data.source = u.state.doc.toString();
          this.onChange("edit");
        }
        if (u.focusChanged && u.view.hasFocus) {
          this.select(this.indexOf(cell), { scroll: false });
          this.setMode("edit");
        }
      }),
    ];
  }

  /** Jupyter's Tab: after a name or a dot it lists the kernel's completions, elsewhere it indents. */
  completion() {
    const source = async (ctx) => {
      const before = ctx.state.doc.sliceString(Math.max(0, ctx.pos - 200), ctx.pos);
      if (!/[\w.]$/.test(before)) return null;
      const r = await this.kernel.complete(before).catch(() => null);
      if (!r || !r.matches.length) return null;
      return { from: ctx.pos - r.length, options: r.matches.map((label) => ({ label })), validFor: /^\w*$/ };
    };
    const tab = (view) => {
      const { head, empty } = view.state.selection.main;
      if (!empty || !/[\w.]/.test(view.state.sliceDoc(head - 1, head))) return false;
      return startCompletion(view);
    };
    return [autocompletion({ override: [source], activateOnTyping: false, icons: false }), Prec.high(keymap.of([{ key: "Tab", run: tab }]))];
  }

  indexOf(cell) {
    return this.cells.indexOf(cell);
  }

  newCell(type) {
    return type === "code"
      ? { id: newCellId(), cell_type: "code", source: "", metadata: {}, outputs: [], execution_count: null }
      : { id: newCellId(), cell_type: "markdown", source: "", metadata: {} };
  }

  add(index, type = "code") {
    const cell = this.insertCell(index, this.newCell(type));
    this.select(index);
    this.onChange("edit");
    return cell;
  }

  remove(index) {
    if (index < 0 || index >= this.cells.length) return;
    const [cell] = this.cells.splice(index, 1);
    cell.view.editor.destroy();
    cell.view.root.remove();
    if (!this.cells.length) this.insertCell(0, this.newCell("code"));
    this.select(Math.min(index, this.cells.length - 1));
    this.onChange("edit");
  }

  move(index, delta) {
    const to = index + delta;
    if (index < 0 || to < 0 || to >= this.cells.length) return;
    const [cell] = this.cells.splice(index, 1);
    this.cells.splice(to, 0, cell);
    this.container.insertBefore(cell.view.root, this.cells[to + 1]?.view.root ?? null);
    this.select(to);
    this.onChange("edit");
  }

  setType(index, type) {
    const old = this.cells[index];
    if (!old || old.data.cell_type === type) return;
    const data = { ...this.newCell(type), id: old.data.id, source: old.data.source };
    this.cells.splice(index, 1);
    old.view.editor.destroy();
    old.view.root.remove();
    this.insertCell(index, data);
    this.select(index);
    this.onChange("edit");
  }

  // ---- selection and modes -----------------------------------------------------------------------------
  select(index, { scroll = true } = {}) {
    if (index < 0 || index >= this.cells.length) return;
    this.cells[this.selected]?.view.root.classList.remove("selected");
    this.selected = index;
    const root = this.cells[index].view.root;
    root.classList.add("selected");
    if (scroll) root.scrollIntoView({ block: "nearest" });
  }

  setMode(mode) {
    this.mode = mode;
    document.body.dataset.mode = mode;
  }

  edit(index = this.selected) {
    const cell = this.cells[index];
    if (!cell) return;
    this.select(index);
    if (cell.data.cell_type === "markdown") this.renderMarkdownCell(cell, false);
    this.setMode("edit");
    cell.view.editor.focus();
  }

  commandMode() {
    this.setMode("command");
    const cell = this.cells[this.selected];
    cell?.view.editor.contentDOM.blur();
    cell?.view.root.focus?.();
    document.activeElement?.blur?.();
  }

  renderMarkdownCell(cell, rendered) {
    cell.view.rendered.innerHTML = rendered ? renderMarkdown(cell.data.source) : "";
    cell.view.root.classList.toggle("rendered-md", rendered);
  }

  // ---- running -----------------------------------------------------------------------------------------
  setPrompt(cell) {
    if (cell.data.cell_type !== "code") {
      cell.view.prompt.textContent = "";
      return;
    }
    const n = cell.data.execution_count;
    cell.view.prompt.textContent = cell.queued ? "[*]:" : `[${n ?? " "}]:`;
    cell.view.root.classList.toggle("queued", Boolean(cell.queued));
    cell.view.root.classList.toggle("running", Boolean(cell.running));
    const t = cell.data.metadata.execution || {};
    const ms = Date.parse(t["shell.execute_reply"]) - Date.parse(t["iopub.execute_input"]);
    cell.view.time.textContent = cell.running ? "running…" : Number.isFinite(ms) ? `took ${fmtDuration(ms)}` : "";
    cell.view.time.title = Number.isFinite(ms) ? `ran at ${new Date(t["iopub.execute_input"]).toLocaleString()}` : "";
  }

  clearOutputs(cell) {
    cell.data.outputs = [];
    cell.view.outputs.replaceChildren();
    for (const [id, list] of this.displays) {
      const kept = list.filter((d) => d.cell !== cell);
      if (kept.length) this.displays.set(id, kept); else this.displays.delete(id);
    }
  }

  showOutput(cell, out, trusted) {
    const box = renderOutput(out, trusted);
    cell.view.outputs.append(box);
    const id = out.transient?.display_id;
    if (id) {
      if (!this.displays.has(id)) this.displays.set(id, []);
      this.displays.get(id).push({ cell, out, box });
    }
    return box;
  }

  /** One output item from the kernel (kernel_worker.js's protocol) into the cell's nbformat outputs; all of
   * them trusted (this session's kernel made them). */
  receive(cell, item) {
    if (item.kind === "clear") {
      if (JSON.parse(item.text).wait) cell.clearPending = true;  // IPython's clear_output(wait=True)
      else this.clearOutputs(cell);
      return this.onChange("output");
    }
    if (item.kind !== "update" && cell.clearPending) {
      cell.clearPending = false;
      this.clearOutputs(cell);
    }
    const outs = cell.data.outputs;
    const add = (out) => {
      outs.push(out);
      this.showOutput(cell, out, true);
    };
    if (item.kind === "stdout" || item.kind === "stderr") {
      const last = outs[outs.length - 1];
      if (last && last.output_type === "stream" && last.name === item.kind) {
        last.text = appendStream(last.text, item.text);
        cell.view.outputs.lastChild.refresh();
      } else {
        add({ output_type: "stream", name: item.kind, text: appendStream("", item.text) });
      }
    } else if (item.kind === "display") {
      const m = JSON.parse(item.text);
      const out = { output_type: "display_data", data: m.data, metadata: m.metadata || {} };
      if (m.display_id) out.transient = { display_id: m.display_id };
      add(out);
    } else if (item.kind === "update") {
      const m = JSON.parse(item.text);
      for (const d of this.displays.get(m.display_id) || []) {
        d.out.data = m.data;
        d.out.metadata = m.metadata || {};
        d.box.refresh();
      }
    } else if (item.kind === "result") {
      const m = JSON.parse(item.text);
      add({ output_type: "execute_result", execution_count: m.execution_count, data: m.data, metadata: m.metadata || {} });
    } else if (item.kind === "error") {
      const m = JSON.parse(item.text);
      add({ output_type: "error", ename: m.ename, evalue: m.evalue, traceback: m.traceback });
    }
    this.onChange("output");
  }

  /** Run one cell (queued behind running ones); resolves "ok" | "error" | "aborted". */
  async runCell(cell) {
    if (cell.data.cell_type === "markdown") {
      this.renderMarkdownCell(cell, true);
      return "ok";
    }
    if (cell.data.cell_type !== "code") return "ok";
    const count = ++this.count;
    cell.queued = true;
    this.setPrompt(cell);
    let started = null;
    const status = await this.kernel.execute(cell.data.source, count, (item) => this.receive(cell, item), () => {
      this.clearOutputs(cell);
      cell.clearPending = false;
      cell.running = true;
      started = new Date();
      this.setPrompt(cell);
    });
    cell.queued = false;
    cell.running = false;
    if (status !== "aborted") {
      cell.data.execution_count = count;
      // JupyterLab's recordTiming keys, so Jupyter shows the same time for a saved notebook
      if (started) cell.data.metadata.execution = { "iopub.execute_input": started.toISOString(), "shell.execute_reply": new Date().toISOString() };
    }
    this.setPrompt(cell);
    this.onChange("output");
    if (status === "error") this.kernel.clearQueue();  // as Jupyter: an error stops a run-all
    return status;
  }

  /** Shift+Enter (advance), Ctrl+Enter (stay), Alt+Enter (advance into a new cell). */
  runAt(index, advance, insert = false) {
    const cell = this.cells[index];
    if (!cell) return;
    const done = this.runCell(cell);
    if (insert) {
      this.add(index + 1, "code");
      this.edit(index + 1);
    } else if (advance) {
      if (index + 1 >= this.cells.length) this.add(index + 1, "code");
      this.select(index + 1);
      if (this.mode === "edit") this.edit(index + 1);
    } else if (cell.data.cell_type === "markdown") {
      this.commandMode();
    }
    return done;
  }

  /** Run cells [from, to); resolves with the statuses. */
  runRange(from, to) {
    return Promise.all(this.cells.slice(from, to).map((c) => this.runCell(c)));
  }

  runAll() {
    return this.runRange(0, this.cells.length);
  }

  runAbove() {
    return this.runRange(0, this.selected);
  }

  /** After a kernel restart: counts start again, queued cells are cleared. */
  resetCounts() {
    this.count = 0;
    for (const c of this.cells) {
      c.queued = false;
      c.running = false;
      this.setPrompt(c);
    }
  }

  snapshot(ci, oi) {
    const box = this.cells[ci]?.view.outputs.children[oi];
    return box ? plotSnapshot(box) : null;
  }
}
