#!/usr/bin/env bash
# The main job: train the digits classifier (MLP + CNN, Adam) inside Pyodide in headless Chromium on WebGPU.
cd "$(dirname "$0")/.."
exec .venv/bin/python -m webtorch_devtools run --browser --timeout "${WEBTORCH_TRAIN_TIMEOUT:-1800}" examples/digits_classifier.py --device webgpu "$@"
