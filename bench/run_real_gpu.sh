#!/usr/bin/env bash
# webgpu on a real GPU, natively (wgpu-py over the GPU's own Vulkan driver): the benchmarks that have a native peer
# on the same GPU (PyTorch on CUDA) and the webgpu test suite, in one prepared run on a machine lent for a few
# minutes (no browser there: Chromium does not travel).
#
#     OUT=DIR [JOBS=12] bash bench/run_real_gpu.sh
#
# Needs python3 with NumPy, PyTorch (CUDA), pytest, pytest-xdist and pytest-timeout, and wgpu-py importable; a
# Vulkan loader that finds the GPU's driver. Each step has its own time limit, so one that hangs costs only its
# share; results go to $OUT (bench JSON files, the tests' junit XML, log.txt).
set -u
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder for the results}"
JOBS="${JOBS:-12}"
export PYTHONPATH="$PWD/py${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 WEBTORCH_REQUIRE_WEBGPU=1
exec > >(tee -a "$OUT/log.txt") 2>&1

step() {  # step SECONDS NAME COMMAND...: run with a limit, say how it ended and how long it took
  local limit=$1 name=$2 t0=$SECONDS rc
  shift 2
  echo "=== $name (limit ${limit}s)"
  timeout "$limit" "$@"
  rc=$?
  echo "=== $name: rc $rc in $((SECONDS - t0)) s"
}

adapter() {
  python3 -c "import json, webtorch; print(json.dumps(webtorch.webgpu.info(), default=str))"
}
if ! adapter | tee /tmp/adapter.txt | grep -qiv "llvmpipe\|swiftshader"; then
  echo "no GPU adapter through the default Vulkan driver list; pointing the loader at NVIDIA's ICD"
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  adapter
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true

step 60 matmul python3 bench/bench_matmul.py --sizes 256 512 1024 2048 4096 --seconds 0.5 --out "$OUT/matmul_gpu.json"
step 90 training python3 bench/bench_training.py --steps 10 --repeat 3 --threads 16 --out "$OUT/training_gpu.json"
step 120 gpt2-small python3 bench/bench_gpt2_small.py --steps 3 --out "$OUT/gpt2_small_gpu.json"
step 200 webgpu-tests python3 -m pytest -q -p no:cacheprovider -n "$JOBS" --timeout 120 tests --ignore=tests/browser \
  -k webgpu --junitxml "$OUT/junit_webgpu.xml" -o junit_logging=no
step 45 capture python3 bench/bench_capture.py --steps 5 --out "$OUT/capture_gpu.json"
step 45 device-policy python3 bench/bench_device_policy.py --out "$OUT/device_policy_gpu.json"
