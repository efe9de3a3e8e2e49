"""The runtime wheel's zip written again by Zopfli (webtorch_devtools/wheel_zip.py): the same entries, names,
order, timestamps and bytes; smaller deflate streams; compressed entries stored; read back by Python's zipfile,
pip's installer path (a wheel pip installs) and web/zip_files.js (the page's reader, under Node)."""
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from webtorch_devtools.wheel_zip import recompress

ROOT = Path(__file__).resolve().parents[2]
# web/zip_files.js over a zip: {name: sha256 of its inflated bytes}
READ_JS = """
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { zipEntries } from "%s/web/zip_files.js";
const entries = zipEntries(new Uint8Array(readFileSync(process.argv.at(-1))));
const out = {};
for (const [name, bytes] of entries) out[name] = createHash("sha256").update(await bytes).digest("hex");
process.stdout.write(JSON.stringify(out));
"""


def _zip(path, files):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 11, 29, 1, 2, 4))
            info.external_attr = 0o644 << 16
            z.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)


def test_same_entries_smaller_and_readable_everywhere(tmp_path):
    files = {"pkg/__init__.py": b"x = 1\n" * 50, "pkg/data.bin": os.urandom(3000) + bytes(20_000),
             "pkg/archive.zst": os.urandom(5000), "pkg/empty.txt": b"",
             "pkg/k\u00e9y.txt": "sch\u00f6n ".encode() * 100}
    path = tmp_path / "pkg-1.0-py3-none-any.whl"
    _zip(path, files)
    with zipfile.ZipFile(path) as z:
        old = {i.filename: (i.date_time, i.external_attr, i.compress_size) for i in z.infolist()}
    before, after = recompress(path)
    assert after == path.stat().st_size and after < before
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        infos = z.infolist()
        assert [i.filename for i in infos] == list(files)
        for i in infos:
            assert z.read(i) == files[i.filename]
            assert (i.date_time, i.external_attr) == old[i.filename][:2]
            assert i.compress_size <= old[i.filename][2] or i.compress_type == zipfile.ZIP_STORED
        methods = {i.filename: i.compress_type for i in infos}
    assert methods["pkg/archive.zst"] == zipfile.ZIP_STORED and methods["pkg/data.bin"] == zipfile.ZIP_DEFLATED
    r = subprocess.run(["node", "--input-type=module", "-e", READ_JS % ROOT, str(path)], capture_output=True,
                       text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout) == {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}


def test_pip_installs_the_recompressed_wheel(tmp_path):
    """A real wheel (RECORD with hashes) rewritten, then installed by pip into a folder: pip checks each file
    against RECORD."""
    src = tmp_path / "src"
    (src / "tinypkg").mkdir(parents=True)
    (src / "tinypkg" / "__init__.py").write_text("VALUE = 41 + 1\n" + "# padding\n" * 200)
    (src / "pyproject.toml").write_text('[project]\nname = "tinypkg"\nversion = "1.0"\n'
                                        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n')
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path / "dist"),
                    str(src)], check=True, capture_output=True, timeout=300)
    wheel = next((tmp_path / "dist").glob("tinypkg-*.whl"))
    recompress(wheel)
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    r = subprocess.run([sys.executable, "-c", "import tinypkg; print(tinypkg.VALUE)"], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(target)}, check=True)
    assert r.stdout.strip() == "42"
