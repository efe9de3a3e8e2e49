// .ipynb (nbformat 4.5) in and out. Cells keep nbformat's own shape in memory; saving strips what only
// lives in the page (display ids) and joins multi-line strings as Jupyter does.

const ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789";

export function newCellId() {
  let s = "";
  for (let i = 0; i < 12; i++) s += ID_CHARS[Math.floor(Math.random() * ID_CHARS.length)];
  return s;
}

const joined = (v) => (Array.isArray(v) ? v.join("") : v ?? "");

/** {name?, cells} from parsed .ipynb JSON; throws a clear error for what is not a notebook. */
export function fromIpynb(nb) {
  if (!nb || typeof nb !== "object" || !Array.isArray(nb.cells)) {
    throw new Error("not a Jupyter notebook: expected a JSON object with a \"cells\" list (.ipynb, nbformat 4)");
  }
  if (nb.nbformat !== 4) throw new Error(`nbformat ${nb.nbformat} is not supported: open it in Jupyter and save it as nbformat 4`);
  const seen = new Set();
  const cells = nb.cells.map((c) => {
    let id = typeof c.id === "string" && /^[a-zA-Z0-9-_]{1,64}$/.test(c.id) && !seen.has(c.id) ? c.id : newCellId();
    seen.add(id);
    const cell = { id, cell_type: c.cell_type === "code" || c.cell_type === "markdown" ? c.cell_type : "raw",
      source: joined(c.source), metadata: c.metadata || {} };
    if (cell.cell_type === "code") {
      cell.execution_count = c.execution_count ?? null;
      cell.outputs = (c.outputs || []).map((o) => {
        const out = { ...o };
        if (out.output_type === "stream") out.text = joined(out.text);
        return out;
      });
    }
    return cell;
  });
  return { cells, metadata: nb.metadata || {} };
}

function cleanOutput(o) {
  const out = { ...o };
  delete out.transient;
  if (out.output_type === "stream") out.text = String(out.text).replace(/\r/g, "");
  if (out.output_type === "execute_result" || out.output_type === "display_data") {
    out.metadata = out.metadata || {};
    out.data = { ...out.data };
  }
  if (out.output_type === "error") {
    out.ename = String(out.ename ?? "Error");
    out.evalue = String(out.evalue ?? "");
    out.traceback = out.traceback || [];
  }
  return out;
}

/** nbformat 4.5 JSON of a notebook; `snapshot(cellIndex, outputIndex)` may add an image/png to live plots. */
export function toIpynb(cells, metadata = {}, snapshot = () => null) {
  return {
    nbformat: 4, nbformat_minor: 5,
    metadata: {
      ...metadata,
      kernelspec: { name: "python3", display_name: "Python 3 (webtorch)", language: "python" },
      language_info: { name: "python", file_extension: ".py", mimetype: "text/x-python" },
    },
    cells: cells.map((c, ci) => {
      const base = { id: c.id, cell_type: c.cell_type, metadata: c.metadata || {}, source: c.source };
      if (c.cell_type !== "code") return base;
      return { ...base, execution_count: c.execution_count ?? null, outputs: (c.outputs || []).map((o, oi) => {
        const out = cleanOutput(o);
        const png = out.data && !out.data["image/png"] ? snapshot(ci, oi) : null;
        if (png) out.data["image/png"] = png;
        return out;
      }) };
    }),
  };
}
