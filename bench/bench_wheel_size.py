"""Where the runtime wheel's bytes go: each zip entry as stored (deflated), and inside the bytecode archive
(webtorch/_bytecode.zst) each part of the package: its marshalled bytes, the archive's size with that part alone,
and how much smaller the archive gets without it (what moving it out of the wheel would save: compressed together,
parts share their names and constants, so a part costs less in the archive than alone).

    .venv/bin/python bench/bench_wheel_size.py [--wheel OTHER.whl]

The archive's outer layer ({module: (is a package, marshalled code)}, {path: bytes}, the on-demand modules' names)
is plain marshal data any
Python reads; the parts are recompressed with the zstd CLI (Debian's ``zstd``, scripts/setup.sh) at the archive's
own level. The on-demand modules (a second archive beside the wheel, fetched at their first import) are not in
the wheel: their file's size is reported beside it. Writes bench/results/wheel_size.json.
"""
import argparse
import marshal
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from _report import report

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "py"))

from webtorch_devtools.bytecode import ARCHIVE, ZSTD_LEVEL, on_demand_path  # noqa: E402
from webtorch_devtools.wheel import build_wheel  # noqa: E402


def zstd(data, decompress=False):
    if shutil.which("zstd") is None:
        raise SystemExit("bench_wheel_size needs the zstd CLI: apt-get install zstd (scripts/setup.sh)")
    args = ["zstd", "-q", "-c"] + (["-d"] if decompress else ["--ultra", f"-{ZSTD_LEVEL}"])
    return subprocess.run(args, input=data, capture_output=True, check=True).stdout


def part(module):
    """The part of the package a module belongs to: webtorch.<subpackage>, webtorch.backends.<backend>."""
    parts = module.split(".")
    return ".".join(parts[:3] if parts[1:2] == ["backends"] and len(parts) > 2 else parts[:2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", help="a built wheel (default: this checkout's)")
    ap.add_argument("--min-kib", type=float, default=1.0, help="list archive parts from this size up")
    args = ap.parse_args()
    wheel = Path(args.wheel) if args.wheel else build_wheel()
    with zipfile.ZipFile(wheel) as z:
        entries = z.infolist()
        archive = z.read(f"webtorch/{ARCHIVE}")
    rows = [{"what": f"zip entry {i.filename}", "raw_kib": i.file_size / 1024, "alone_kib": i.compress_size / 1024,
             "saved_kib": (i.compress_size + 76 + 2 * len(i.filename)) / 1024}  # + its local and central headers
            for i in sorted(entries, key=lambda i: -i.compress_size)]
    raw = zstd(archive, decompress=True)
    magic, modules, files, on_demand = marshal.loads(raw)
    whole = len(zstd(raw))
    groups = {}
    for name in modules:
        groups.setdefault(part(name), []).append(name)
    groups = {g: ns for g, ns in groups.items() if sum(len(modules[n][1]) for n in ns) >= args.min_kib * 1024}
    for g, names in sorted(groups.items()):
        rest = {n: v for n, v in modules.items() if n not in names}
        alone = {n: modules[n] for n in names}
        rows.append({"what": f"archive: {g} ({len(names)} modules)",
                     "raw_kib": sum(len(modules[n][1]) for n in names) / 1024,
                     "alone_kib": len(zstd(marshal.dumps((magic, alone, {}, ({}, ""))))) / 1024,
                     "saved_kib": (whole - len(zstd(marshal.dumps((magic, rest, files, on_demand))))) / 1024})
    rows.append({"what": f"archive: data files ({len(files)}, WGSL)", "raw_kib": sum(map(len, files.values())) / 1024,
                 "alone_kib": len(zstd(marshal.dumps((magic, {}, files, ({}, ""))))) / 1024,
                 "saved_kib": (whole - len(zstd(marshal.dumps((magic, modules, {}, on_demand))))) / 1024})
    later = on_demand_path(wheel)
    later_kib = later.stat().st_size / 1024 if later.is_file() else 0.0
    report("wheel_size", rows, [("what", "part", ""), ("raw_kib", "raw KiB", ".1f"),
                                ("alone_kib", "compressed alone KiB", ".1f"),
                                ("saved_kib", "wheel KiB saved without it", ".1f")],
           title=f"{wheel.name}: {wheel.stat().st_size / 1024:.1f} KiB; archive {len(archive) / 1024:.1f} KiB "
                 f"({len(raw) / 1024:.0f} KiB marshalled, {len(modules)} modules); on-demand modules beside it "
                 f"{later_kib:.1f} KiB ({len(on_demand[0])} modules)",
           wheel_kib=wheel.stat().st_size / 1024, archive_kib=len(archive) / 1024, on_demand_kib=later_kib,
           zstd_level=ZSTD_LEVEL)


if __name__ == "__main__":
    main()
