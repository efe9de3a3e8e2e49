// The files of a zip (a wheel, a script's folder), inflated by the JS engine's own DecompressionStream, and their
// copy into Pyodide's file system. web/loader.js inflates the wheels while Pyodide boots and writes them after
// (web/run.js the script's folder): no Python runs between the boot and `import webtorch` (pyodide.unpackArchive
// runs Python's zipfile through a temporary file: 0.1-0.8 s in Pyodide here, bench/bench_import.py).

const EOCD = 0x06054b50, CENTRAL = 0x02014b50, LOCAL = 0x04034b50;

function zipError(what) {
  return new Error(`webtorch: not a readable zip archive (${what}); serve the file as it was built`);
}

async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Map of path inside the zip -> promise of its contents (folders left out), from the zip's central directory.
 * The entries named in ``first`` (e.g. a manifest wanted early) inflate first, the rest after them. */
export function zipEntries(zip, first = []) {
  const v = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22; // end-of-central-directory record (a zip comment may follow it)
  while (end >= 0 && v.getUint32(end, true) !== EOCD) end--;
  if (end < 0) throw zipError("no end of central directory");
  const decoder = new TextDecoder();
  const entries = new Map();
  for (let i = 0, at = v.getUint32(end + 16, true); i < v.getUint16(end + 10, true); i++) {
    if (v.getUint32(at, true) !== CENTRAL) throw zipError(`bad central directory entry ${i}`);
    const method = v.getUint16(at + 10, true), size = v.getUint32(at + 20, true), local = v.getUint32(at + 42, true);
    const nameLen = v.getUint16(at + 28, true);
    const name = decoder.decode(zip.subarray(at + 46, at + 46 + nameLen));
    at += 46 + nameLen + v.getUint16(at + 30, true) + v.getUint16(at + 32, true);
    if (name.endsWith("/")) continue;
    if (name.startsWith("/") || name.split("/").includes("..")) throw zipError(`unsafe path ${name}`);
    if (size === 0xffffffff || v.getUint32(local, true) !== LOCAL) throw zipError(`entry ${name}: zip64 or bad offset`);
    const start = local + 30 + v.getUint16(local + 26, true) + v.getUint16(local + 28, true);
    const data = zip.subarray(start, start + size);
    if (method !== 0 && method !== 8) throw zipError(`entry ${name}: compression method ${method}`);
    entries.set(name, { method, data });
  }
  const open = ({ method, data }) => (method === 8 ? inflate(data) : Promise.resolve(data));
  const head = new Map(first.filter((name) => entries.has(name)).map((name) => [name, open(entries.get(name))]));
  const after = Promise.allSettled(head.values());
  for (const [name, entry] of entries) entries.set(name, head.get(name) || after.then(() => open(entry)));
  return entries;
}

/** Map of path inside the zip -> contents, once every entry of a zipEntries map is inflated. */
export async function zipFiles(entries) {
  return new Map(await Promise.all([...entries].map(async ([name, bytes]) => [name, await bytes])));
}

/** Write ``files`` (a zipFiles map, handed over: the file system keeps its arrays) under the folder ``dir`` of
 * Pyodide's file system (made where missing). */
export function writeFiles(pyodide, dir, files) {
  const made = new Set();
  const folder = (path) => { // each missing level made once (FS.mkdirTree throws at every existing level)
    if (made.has(path)) return;
    if (!pyodide.FS.analyzePath(path).exists) {
      folder(path.slice(0, path.lastIndexOf("/")) || "/");
      pyodide.FS.mkdir(path);
    }
    made.add(path);
  };
  for (const [name, bytes] of files) {
    const slash = name.lastIndexOf("/");
    folder(slash < 0 ? dir : `${dir}/${name.slice(0, slash)}`);
    pyodide.FS.writeFile(`${dir}/${name}`, bytes, { canOwn: true });
  }
}
