// Autosave: every notebook in IndexedDB ({id, name, source, updated, nb}), surviving reloads and restarts.
const DB = "webtorch-notebook", STORE = "notebooks";

let dbPromise = null;
function db() {
  dbPromise ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: "id" });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  return dbPromise;
}

async function tx(mode, fn) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const t = d.transaction(STORE, mode);
    const req = fn(t.objectStore(STORE));
    t.oncomplete = () => resolve(req.result);
    t.onerror = () => reject(t.error);
  });
}

export const saveNotebook = (record) => tx("readwrite", (s) => s.put({ ...record, updated: Date.now() }));
export const loadNotebook = (id) => tx("readonly", (s) => s.get(id));
export const deleteNotebook = (id) => tx("readwrite", (s) => s.delete(id));

/** [{id, name, source, updated}] newest first. */
export async function listNotebooks() {
  const all = await tx("readonly", (s) => s.getAll());
  return all.map(({ id, name, source, updated }) => ({ id, name, source, updated })).sort((a, b) => b.updated - a.updated);
}
