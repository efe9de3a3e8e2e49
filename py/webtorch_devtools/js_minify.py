"""The JavaScript the runtime wheel ships, minified: webgpu's bridge.js and device "cpu"'s wasm_host.js travel in
the wheel for Pyodide hosts that do not load web/loader.js (the page's copies in web/ stay as written). esbuild
(package.json's pinned version, in the checkout's node_modules: ``esbuild()``) rewrites each file alone, without bundling: its
imports and exports stay, local names shrink, comments go (bench/results/wheel.md: 9.9 -> 4.7 KiB deflated).
build_hook runs this on the build folder.

    python -m webtorch_devtools.js_minify BUILD_LIB CHECKOUT
"""
import os
import subprocess
from pathlib import Path


ESBUILD_ENV = "WEBTORCH_ESBUILD"  # the esbuild executable (wheel.py sets it: its builds run in a copy of py/)


def esbuild(checkout=None):
    """$WEBTORCH_ESBUILD, else ``checkout``/node_modules/.bin/esbuild (npm ci installs it); raises naming the fix
    when it is missing."""
    exe = Path(os.environ.get(ESBUILD_ENV) or Path(checkout or ".") / "node_modules" / ".bin" / "esbuild")
    if not exe.is_file():
        raise RuntimeError(f"minifying the wheel's JavaScript needs esbuild: run `npm ci` in the checkout or set "
                           f"{ESBUILD_ENV} to it (not found: {exe})")
    return exe


def minify_folder(folder, checkout):
    """Minify every .js file under ``folder`` in place; returns (bytes before, bytes after)."""
    exe = esbuild(checkout)
    before = after = 0
    for p in sorted(Path(folder).rglob("*.js")):
        text = p.read_bytes()
        r = subprocess.run([str(exe), "--minify", "--log-level=warning", "--loader=js"], input=text,
                           capture_output=True, check=False)
        if r.returncode or not r.stdout:
            raise RuntimeError(f"esbuild could not minify {p.name}: {r.stderr.decode()[-2000:]}")
        p.write_bytes(r.stdout)
        before, after = before + len(text), after + len(r.stdout)
    return before, after


if __name__ == "__main__":
    import sys
    print(minify_folder(Path(sys.argv[1]) / "webtorch", sys.argv[2]))
