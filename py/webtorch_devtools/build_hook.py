"""pyproject's build backend step (``[tool.setuptools.cmdclass] build_py``) that adds the webgpu warm-up
manifest to the runtime wheel: setuptools' build_py, then ``python -m webtorch_devtools.warmup BUILD_LIB``
writes ``webtorch/backends/webgpu/warmup.json`` into the build folder (recorded from the webtorch being
built, in a fresh interpreter). Loaded by setuptools from its file, so it imports nothing of this package.
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
        env = {**os.environ, "PYTHONPATH": str(py_root)}
        r = subprocess.run([sys.executable, "-m", "webtorch_devtools.warmup", str(Path(self.build_lib).resolve())],
                           cwd=py_root, env=env, capture_output=True, text=True, check=False)
        if r.returncode:
            raise RuntimeError(f"recording the webgpu warm-up manifest failed:\n{r.stderr[-3000:]}")

