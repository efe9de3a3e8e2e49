#!/usr/bin/env bash
# The main job: set up, then train the example model (in headless Chromium on WebGPU once the browser
# runtime lands; until then in CPython on the cpu device).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -f examples/train_browser.sh ]; then
  exec bash examples/train_browser.sh "$@"
fi
exec .venv/bin/python examples/core_regression.py "$@"
