"""pyproject's build backend step (``[tool.setuptools.cmdclass] build_py``) that readies the runtime wheel's
build folder for the browser: setuptools' build_py, then ``python -m webtorch_devtools.wgsl_comments BUILD_LIB``
drops the WGSL kernels' comment lines, ``python -m webtorch_devtools.js_minify BUILD_LIB CHECKOUT`` minifies the
shipped bridge.js and wasm_host.js, ``python -m webtorch_devtools.warmup BUILD_LIB`` writes
``webtorch/backends/webgpu/warmup.json`` (recorded from the build folder's webtorch, in a fresh
interpreter), then ``python -m webtorch_devtools.bytecode BUILD_LIB CHECKOUT`` replaces the sources with
bytecode compiled inside Pyodide. Loaded by setuptools from its file, so it imports nothing of this package.
"""
import os
import subprocess
import sys
from pathlib import Path

from setuptools.command.build_py import build_py


class BuildPyWithWarmup(build_py):
    def run(self):
        super().run()
        if self.editable_mode:  # an editable install runs the checkout itself: no wheel for a browser to warm
            return
        py_root = Path(__file__).resolve().parents[1]
        build_lib = str(Path(self.build_lib).resolve())
        # run in the build folder, so webtorch is imported from there (the warm-up records the kernels the wheel
        # ships), this package from the sources
        env = {**os.environ, "PYTHONPATH": os.pathsep.join((build_lib, str(py_root)))}
        for what, args in (("dropping the WGSL comment lines", ["webtorch_devtools.wgsl_comments", build_lib]),
                           ("minifying the shipped JavaScript", ["webtorch_devtools.js_minify", build_lib,
                                                                 str(py_root.parent)]),
                           ("recording the webgpu warm-up manifest", ["webtorch_devtools.warmup", build_lib]),
                           ("compiling the bytecode", ["webtorch_devtools.bytecode", build_lib, str(py_root.parent)])):
            r = subprocess.run([sys.executable, "-m", *args], cwd=build_lib, env=env, capture_output=True, text=True,
                               check=False)
            if r.returncode:
                raise RuntimeError(f"{what} failed:\n{r.stderr[-3000:]}")

