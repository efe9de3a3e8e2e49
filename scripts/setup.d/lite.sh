#!/usr/bin/env bash
# The JupyterLite site (`webtorch lite build`): the pure-Python wheels its Pyodide kernel loads at start-up,
# downloaded once from PyPI at the versions of Pyodide's lock into a git-ignored cache (.cache/lite-wheels).
# Idempotent: wheels already there are not downloaded again.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m webtorch_devtools.lite_wheels >/dev/null
