#!/usr/bin/env bash
# The test command: set up (idempotent), then the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export WEBTORCH_REQUIRE_WEBGPU=1
# One BLAS/OpenMP thread for NumPy and the PyTorch oracle: on a shared 2-core machine under load, 2 threads made
# a 128x128 matmul ~1000x slower at the median (30 ms vs 35 us) and an MLP training step 8x slower (measured).
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
# The whole run (no arguments) then runs every cpu test again with device "cpu" served by the WebAssembly kernels
# (backends/wasm through wasmtime: what "cpu" is in the page; ~6 min), and proves replay equals eager: every webgpu
# test again with each reused flush plan (backends/webgpu/plan_cache.py) checked against a freshly planned one
# (~6 min on this machine).
if [ $# -eq 0 ]; then
  WEBTORCH_CPU_BACKEND=wasm .venv/bin/python -m pytest -q -p no:cacheprovider tests --ignore=tests/browser -k cpu
  WEBTORCH_CAPTURE_CHECK=1 exec .venv/bin/python -m pytest -q -p no:cacheprovider tests --ignore=tests/browser \
    -k "webgpu or capture"
fi
